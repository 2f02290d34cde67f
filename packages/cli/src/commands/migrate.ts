import type { Action } from '../command-context.js';
import { EXIT_CHANGES_NEEDED, EXIT_OK, UsageError } from '../exit-codes.js';
import type { Change } from '../migration/find-changes.js';
import type { Output } from '../output.js';

/**
 * `sas migrate check [path]` lists every change 1.x code needs for 2.0
 * (exit 1 when there is any, 0 when none); `sas migrate apply [path]` makes
 * the automatic ones and lists the rest (exit 1 while some are left).
 */
async function analyse(path: string) {
  const { existsSync } = await import('node:fs');
  if (!existsSync(path)) throw new UsageError(`no such file or directory: ${path}`);
  const { findChanges, loadProject } = await import('../migration/find-changes.js');
  const { project, root } = loadProject(path);
  return { project, analysis: findChanges(project, root) };
}

function summary(changes: Change[]) {
  const automatic = changes.filter((change) => change.automatic).length;
  return {
    total: changes.length,
    automatic,
    manual: changes.length - automatic,
    files: new Set(changes.map((change) => change.file)).size,
  };
}

function publicChange({ edit: _edit, ...change }: Change) {
  return change;
}

function describe(changes: Change[], out: Output): string {
  return changes
    .map((change) => {
      const how = change.automatic ? out.colour.green('automatic') : out.colour.yellow('by hand');
      return [
        `${out.colour.bold(`${change.file}:${change.line}`)}  ${change.kind} (${how})`,
        `  - ${change.old}`,
        `  + ${change.new}`,
        `  ${out.colour.dim(change.note)}`,
      ].join('\n');
    })
    .join('\n\n');
}

export const check: Action = async ({ args, out }) => {
  const { analysis } = await analyse(String(args[0] ?? '.'));
  const counts = summary(analysis.changes);
  out.result(
    {
      root: analysis.root,
      files_scanned: analysis.files,
      summary: counts,
      changes: analysis.changes.map(publicChange),
    },
    () =>
      counts.total === 0
        ? `No 1.x SDK calls in ${analysis.files} files: nothing to migrate.`
        : `${describe(analysis.changes, out)}\n\n${counts.total} changes in ${counts.files} files: ${counts.automatic} automatic (sas migrate apply), ${counts.manual} by hand.`,
  );
  return counts.total > 0 ? EXIT_CHANGES_NEEDED : EXIT_OK;
};

export const apply: Action = async ({ args, out }) => {
  const { project, analysis } = await analyse(String(args[0] ?? '.'));
  const { applyChanges } = await import('../migration/apply-changes.js');
  const applied = applyChanges(project, analysis);
  out.result(
    {
      root: analysis.root,
      files_rewritten: applied.files,
      applied: applied.applied.map(publicChange),
      remaining: applied.remaining.map(publicChange),
    },
    () =>
      [
        applied.applied.length === 0
          ? 'Nothing rewritten.'
          : `Rewrote ${applied.applied.length} changes in ${applied.files.length} files.`,
        ...(applied.remaining.length > 0
          ? [
              `${applied.remaining.length} changes are left to make by hand (marked TODO(sas migrate) in the code):`,
              describe(applied.remaining, out),
            ]
          : []),
      ].join('\n\n'),
  );
  return applied.remaining.length > 0 ? EXIT_CHANGES_NEEDED : EXIT_OK;
};
