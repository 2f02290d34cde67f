import { MIGRATION_RULES, type MigrationRule } from '@sas/sdk/v1';
import {
  Node,
  Project,
  type CallExpression,
  type ImportDeclaration,
  type NewExpression,
  type SourceFile,
  type TypeNode,
} from 'ts-morph';
import { statSync } from 'node:fs';
import { relative, resolve } from 'node:path';

/**
 * The 1.x → 2.0 migration, read from the code with ts-morph (the TypeScript
 * parser and binder, so comments and strings never match and variables are
 * followed to their declarations). What each call becomes comes from the
 * SDK's MIGRATION_RULES alone.
 */

export const V1_MODULE = '@sas/sdk/v1';
export const V2_MODULE = '@sas/sdk';
/** 1.x's default address: a construction without `baseUrl` gets it written out (2.0 has no default). */
export const V1_DEFAULT_BASE_URL = "'https://api.example.com'";

export type ChangeKind = 'import' | 'constructor' | 'type' | 'call';

/** One change the code needs, where it is, and whether `sas migrate apply` makes it. */
export interface Change {
  file: string;
  line: number;
  column: number;
  kind: ChangeKind;
  old: string;
  new: string;
  automatic: boolean;
  note: string;
  /** Source positions of the text `apply` replaces with `replacement` (automatic changes only). */
  edit?: { start: number; end: number; replacement: string };
}

export interface Analysis {
  root: string;
  files: number;
  changes: Change[];
}

const RESOURCES = new Set(
  MIGRATION_RULES.map((rule) => rule.receiver).filter((receiver) => receiver !== null),
);
const CLIENT_OPTIONS = ['baseUrl', 'apiKey', 'maxRetries'] as const;

export function loadProject(path: string): { project: Project; root: string } {
  const target = resolve(path);
  const project = new Project({
    compilerOptions: { allowJs: true, noEmit: true, skipLibCheck: true },
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
  });
  if (statSync(target).isFile()) {
    project.addSourceFileAtPath(target);
    return { project, root: resolve(target, '..') };
  }
  project.addSourceFilesAtPaths([
    `${target}/**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}`,
    `!${target}/**/node_modules/**`,
    `!${target}/**/dist/**`,
    `!${target}/**/*.d.ts`,
  ]);
  return { project, root: target };
}

export function findChanges(project: Project, root: string): Analysis {
  const changes: Change[] = [];
  const sources = project.getSourceFiles();
  for (const source of sources) changes.push(...changesOf(source, root));
  changes.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  return { root, files: sources.length, changes };
}

/** The local names the 1.x module is imported under in one file. */
interface V1Names {
  client: Set<string>;
  verify: Set<string>;
  namespaces: Set<string>;
  imports: ImportDeclaration[];
}

function v1NamesOf(source: SourceFile): V1Names {
  const names: V1Names = {
    client: new Set(),
    verify: new Set(),
    namespaces: new Set(),
    imports: [],
  };
  for (const declaration of source.getImportDeclarations()) {
    if (declaration.getModuleSpecifierValue() !== V1_MODULE) continue;
    names.imports.push(declaration);
    const namespace = declaration.getNamespaceImport();
    if (namespace) names.namespaces.add(namespace.getText());
    for (const specifier of declaration.getNamedImports()) {
      const local = specifier.getAliasNode()?.getText() ?? specifier.getName();
      if (specifier.getName() === 'SasClient') names.client.add(local);
      if (specifier.getName() === 'verifySignature') names.verify.add(local);
    }
  }
  return names;
}

function changesOf(source: SourceFile, root: string): Change[] {
  const names = v1NamesOf(source);
  if (names.imports.length === 0) return [];
  const file = relative(root, source.getFilePath()) || source.getBaseName();
  const at = (node: Node) => {
    const { line, column } = source.getLineAndColumnAtPos(node.getStart());
    return { file, line, column };
  };
  const changes: Change[] = [];
  const names1x = (node: Node, member: 'SasClient' | 'verifySignature'): boolean => {
    if (Node.isIdentifier(node)) {
      return (member === 'SasClient' ? names.client : names.verify).has(node.getText());
    }
    if (Node.isPropertyAccessExpression(node) || Node.isQualifiedName(node)) {
      const left = Node.isPropertyAccessExpression(node) ? node.getExpression() : node.getLeft();
      const right = Node.isPropertyAccessExpression(node)
        ? node.getName()
        : node.getRight().getText();
      return right === member && names.namespaces.has(left.getText());
    }
    return false;
  };
  const isClientType = (type: TypeNode | undefined): boolean =>
    type !== undefined && Node.isTypeReference(type) && names1x(type.getTypeName(), 'SasClient');
  const isConstruction = (node: Node): node is NewExpression =>
    Node.isNewExpression(node) && names1x(node.getExpression(), 'SasClient');

  /** Whether an expression holds a 1.x client: made here, or a variable, field or parameter that does. */
  const isClient = (expression: Node, depth = 0): boolean => {
    if (depth > 8) return false;
    if (Node.isParenthesizedExpression(expression) || Node.isNonNullExpression(expression)) {
      return isClient(expression.getExpression(), depth + 1);
    }
    if (Node.isAsExpression(expression) || Node.isSatisfiesExpression(expression)) {
      return (
        isClientType(expression.getTypeNode()) || isClient(expression.getExpression(), depth + 1)
      );
    }
    if (Node.isAwaitExpression(expression)) return false;
    if (isConstruction(expression)) return true;
    if (!Node.isIdentifier(expression) && !Node.isPropertyAccessExpression(expression))
      return false;
    const symbol = expression.getSymbol();
    for (const declaration of symbol?.getDeclarations() ?? []) {
      if (
        Node.isVariableDeclaration(declaration) ||
        Node.isPropertyDeclaration(declaration) ||
        Node.isParameterDeclaration(declaration) ||
        Node.isPropertySignature(declaration)
      ) {
        if (isClientType(declaration.getTypeNode())) return true;
        const initializer = Node.isPropertySignature(declaration)
          ? undefined
          : declaration.getInitializer();
        if (initializer && isClient(initializer, depth + 1)) return true;
      }
      // JavaScript classes declare fields by assigning them: `this.sas = new SasClient(…)`.
      if (Node.isBinaryExpression(declaration) && isClient(declaration.getRight(), depth + 1)) {
        return true;
      }
    }
    return false;
  };

  for (const declaration of names.imports)
    changes.push(importChange(declaration, names, at(declaration)));

  source.forEachDescendant((node) => {
    if (isConstruction(node)) changes.push(constructorChange(node, at(node)));
    else if (Node.isTypeReference(node) && isClientType(node)) {
      const typeName = node.getTypeName();
      changes.push({
        ...at(node),
        kind: 'type',
        old: node.getText(),
        new: 'Client',
        automatic: true,
        note: 'the 2.0 client type',
        edit: { start: typeName.getStart(), end: typeName.getEnd(), replacement: 'Client' },
      });
    } else if (Node.isCallExpression(node)) {
      const change = callChange(node, names1x, isClient);
      if (change) changes.push({ ...at(node), ...change });
    }
  });
  return changes;
}

function ruleFor(receiver: string | null, method: string): MigrationRule | undefined {
  return MIGRATION_RULES.find((rule) => rule.receiver === receiver && rule.method === method);
}

function callChange(
  call: CallExpression,
  names1x: (node: Node, member: 'SasClient' | 'verifySignature') => boolean,
  isClient: (expression: Node) => boolean,
): Omit<Change, 'file' | 'line' | 'column'> | null {
  const callee = call.getExpression();
  const args = call.getArguments().map((argument) => oneLine(argument.getText()));
  if (names1x(callee, 'verifySignature')) {
    const rule = ruleFor(null, 'verifySignature')!;
    const [rawBody = 'rawBody', signature = 'signature', secret = 'secret'] = args;
    return {
      kind: 'call',
      old: oneLine(call.getText()),
      new: `${rule.replacement.method}(${secret}, ${rawBody}, { 'x-service-signature': ${signature} })`,
      automatic: rule.automatic,
      note: rule.note,
    };
  }
  if (!Node.isPropertyAccessExpression(callee)) return null;
  const resource = callee.getExpression();
  if (!Node.isPropertyAccessExpression(resource) || !RESOURCES.has(resource.getName() as never)) {
    return null;
  }
  if (!isClient(resource.getExpression())) return null;
  const rule = ruleFor(resource.getName(), callee.getName());
  if (!rule) return null;
  const renamed = `${rule.replacement.receiver}.${rule.replacement.method}`;
  const client = oneLine(resource.getExpression().getText());
  return {
    kind: 'call',
    old: oneLine(call.getText()),
    new: `${client}.${renamed}(${args.join(', ')})`,
    automatic: rule.automatic,
    note: rule.note,
    // Only the two names change, so calls nested in the arguments keep their own edits.
    ...(rule.automatic
      ? {
          edit: {
            start: resource.getNameNode().getStart(),
            end: callee.getNameNode().getEnd(),
            replacement: renamed,
          },
        }
      : {}),
  };
}

/** `new SasClient({ apiKey, baseUrl })` → `new Client({ baseUrl, apiKey })`; automatic for an object literal of known options. */
function constructorChange(
  construction: NewExpression,
  where: { file: string; line: number; column: number },
): Change {
  const [options, ...rest] = construction.getArguments();
  const known = new Map<string, string>();
  let literal =
    options !== undefined && rest.length === 0 && Node.isObjectLiteralExpression(options);
  if (literal && Node.isObjectLiteralExpression(options!)) {
    for (const property of options.getProperties()) {
      const name =
        Node.isPropertyAssignment(property) || Node.isShorthandPropertyAssignment(property)
          ? property.getName()
          : null;
      if (name === null || !(CLIENT_OPTIONS as readonly string[]).includes(name)) {
        literal = false;
        break;
      }
      known.set(
        name,
        Node.isPropertyAssignment(property)
          ? `${name}: ${oneLine(property.getInitializerOrThrow().getText())}`
          : name,
      );
    }
  }
  const old = oneLine(construction.getText());
  if (!literal || !known.has('apiKey')) {
    return {
      ...where,
      kind: 'constructor',
      old,
      new: 'new Client({ baseUrl, apiKey })',
      automatic: false,
      note: '2.0 takes { baseUrl, apiKey } (or clientId and clientSecret) and has no default baseUrl: write the options out',
    };
  }
  const entries = [
    known.get('baseUrl') ?? `baseUrl: ${V1_DEFAULT_BASE_URL}`,
    known.get('apiKey')!,
    ...(known.has('maxRetries') ? [known.get('maxRetries')!] : []),
  ];
  const replacement = `new Client({ ${entries.join(', ')} })`;
  return {
    ...where,
    kind: 'constructor',
    old,
    new: replacement,
    automatic: true,
    note: known.has('baseUrl')
      ? 'Client from @sas/sdk: the same options, baseUrl first'
      : "Client from @sas/sdk: baseUrl is required in 2.0, so 1.x's default is written out",
    edit: { start: construction.getStart(), end: construction.getEnd(), replacement },
  };
}

/** The import of @sas/sdk/v1 → the 2.0 names from @sas/sdk (apply keeps what is still used by hand). */
function importChange(
  declaration: ImportDeclaration,
  names: V1Names,
  where: { file: string; line: number; column: number },
): Change {
  const wanted: string[] = [];
  const specifiers = declaration.getNamedImports().map((specifier) => specifier.getName());
  if (specifiers.includes('SasClient') || declaration.getNamespaceImport()) wanted.push('Client');
  if (specifiers.includes('verifySignature') || declaration.getNamespaceImport()) {
    wanted.push('verifyWebhook');
  }
  const typeOnly = declaration.isTypeOnly() ? 'type ' : '';
  return {
    ...where,
    kind: 'import',
    old: oneLine(declaration.getText()),
    new: `import ${typeOnly}{ ${wanted.join(', ')} } from '${V2_MODULE}';`,
    automatic: true,
    note:
      names.verify.size > 0 || declaration.getNamespaceImport()
        ? `2.0 names from ${V2_MODULE}; apply keeps verifySignature from ${V1_MODULE} until its calls are changed by hand`
        : `2.0 names from ${V2_MODULE}`,
  };
}

/** A call as one line, for reports. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
