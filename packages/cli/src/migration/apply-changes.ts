import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Node, type Project, type SourceFile } from 'ts-morph';
import { V1_MODULE, V2_MODULE, type Analysis, type Change } from './find-changes.js';

/** The marker `apply` leaves above each call it could not rewrite. */
export const TODO_MARKER = 'TODO(sas migrate)';

export interface Applied {
  /** Files written, relative to the project. */
  files: string[];
  applied: Change[];
  /** The changes left to make by hand (each marked in the code with TODO_MARKER). */
  remaining: Change[];
}

interface Edit {
  start: number;
  end: number;
  replacement: string;
}

/**
 * Makes the automatic changes — the calls MIGRATION_RULES allows, the
 * constructions, the client type, the imports — and marks each remaining
 * one with a `// TODO(sas migrate): …` line above it. Text edits on the
 * original positions, so formatting and comments elsewhere stay untouched.
 */
export function applyChanges(project: Project, analysis: Analysis): Applied {
  const result: Applied = { files: [], applied: [], remaining: [] };
  const byFile = new Map<string, Change[]>();
  for (const change of analysis.changes) {
    byFile.set(change.file, [...(byFile.get(change.file) ?? []), change]);
  }
  for (const [file, changes] of byFile) {
    const source = project.getSourceFileOrThrow(join(analysis.root, file));
    const edits: Edit[] = [];
    const manualConstruction = changes.some(
      (change) => change.kind === 'constructor' && !change.automatic,
    );
    for (const change of changes) {
      if (change.kind === 'import') {
        const edit = importEdit(source, change, manualConstruction);
        // An import of verifySignature alone stays until its calls are changed by hand.
        const unchanged = edit.replacement === source.getFullText().slice(edit.start, edit.end);
        if (!unchanged) edits.push(edit);
        (unchanged ? result.remaining : result.applied).push(change);
      } else if (change.automatic && change.edit) {
        edits.push(change.edit);
        result.applied.push(change);
      } else {
        edits.push(todoEdit(source, change));
        result.remaining.push(change);
      }
    }
    writeFileSync(source.getFilePath(), applyEdits(source.getFullText(), edits));
    result.files.push(file);
  }
  return result;
}

/** Later edits first, so earlier positions stay valid; a replacement before an insertion at the same place. */
function applyEdits(text: string, edits: Edit[]): string {
  const ordered = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let output = text;
  let floor = Infinity;
  for (const edit of ordered) {
    if (edit.end > floor) continue; // overlaps an edit already made (a nested construction): leave it
    output = output.slice(0, edit.start) + edit.replacement + output.slice(edit.end);
    floor = edit.start;
  }
  return output;
}

function importEdit(source: SourceFile, change: Change, keepSasClient: boolean): Edit {
  const declaration = source
    .getImportDeclarations()
    .find((candidate) => source.getLineAndColumnAtPos(candidate.getStart()).line === change.line)!;
  const typeOnly = declaration.isTypeOnly() ? 'type ' : '';
  const moved = `import ${typeOnly}{ Client } from '${V2_MODULE}';`;
  if (declaration.getNamespaceImport()) {
    // `v1.verifySignature` and the like may remain: the namespace import stays beside the new one.
    return {
      start: declaration.getStart(),
      end: declaration.getStart(),
      replacement: `${moved}\n`,
    };
  }
  const kept = declaration
    .getNamedImports()
    .filter((specifier) => specifier.getName() !== 'SasClient' || keepSasClient)
    .map((specifier) => specifier.getText());
  const importsClient = declaration
    .getNamedImports()
    .some((specifier) => specifier.getName() === 'SasClient');
  const lines = [
    ...(importsClient ? [moved] : []),
    ...(kept.length > 0 ? [`import ${typeOnly}{ ${kept.join(', ')} } from '${V1_MODULE}';`] : []),
  ];
  return {
    start: declaration.getStart(),
    end: declaration.getEnd(),
    replacement: lines.join('\n'),
  };
}

/** `// TODO(sas migrate): <the 2.0 call> — <what changes>` above the statement holding the call. */
function todoEdit(source: SourceFile, change: Change): Edit {
  const position = source.compilerNode.getPositionOfLineAndCharacter(change.line - 1, 0);
  const lineText = source.getFullText().slice(position).split('\n', 1)[0]!;
  const indent = /^\s*/.exec(lineText)![0];
  const node = source.getDescendantAtPos(position + indent.length);
  const inTemplate = node?.getAncestors().some((ancestor) => Node.isTemplateExpression(ancestor));
  if (inTemplate) return { start: position, end: position, replacement: '' };
  return {
    start: position,
    end: position,
    replacement: `${indent}// ${TODO_MARKER}: ${change.new} — ${change.note}\n`,
  };
}
