import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { dataSourceOf } from '#database';

/**
 * Reads the service's source tree the way a reviewer of the data layer
 * would (docs/architecture.md, "Data layer"): which lib owns each table,
 * where SQL is written, which tables each repository method names and
 * whether it takes the tenant. Pure syntax (no type checker), so it runs in
 * a second over the whole tree.
 */

export const ROOT = resolve(import.meta.dirname, '../..');

/** One table as the entities declare it. */
export interface OwnedTable {
  table: string;
  lib: string;
  /** Has `organization_id`: statements must name the organisation. */
  organization: boolean;
  /** Has `mode` as well: statements must name the mode too. */
  mode: boolean;
}

/**
 * Tables whose `mode` column records the mode a row was made in, not the
 * mode it belongs to: they serve both modes of their organisation, as
 * people do (docs/architecture.md, "Tenancy").
 */
const SHARED_BY_BOTH_MODES = new Set(['sso_connections']);

/** Every table's owner, from each lib's `entities.ts` (`<LIB>_ENTITIES`) and TypeORM's metadata. */
export async function tableOwners(): Promise<Map<string, OwnedTable>> {
  const owners = new Map<string, OwnedTable>();
  const byClass = new Map<unknown, string>();
  for (const lib of readdirSync(join(ROOT, 'libs'))) {
    let module: Record<string, unknown>;
    try {
      module = (await import(
        pathToFileURL(join(ROOT, 'libs', lib, 'src/entities.ts')).href
      )) as Record<string, unknown>;
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') continue;
      throw error;
    }
    for (const [name, value] of Object.entries(module)) {
      if (!name.endsWith('_ENTITIES') || !Array.isArray(value)) continue;
      for (const entity of value) byClass.set(entity, lib);
    }
  }
  const dataSource = dataSourceOf({ type: 'postgres', entities: [...byClass.keys()] as never });
  await (dataSource as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  for (const metadata of dataSource.entityMetadatas) {
    const columns = new Set(metadata.columns.map((column) => column.databaseName));
    owners.set(metadata.tableName, {
      table: metadata.tableName,
      lib: byClass.get(metadata.target)!,
      organization: columns.has('organization_id'),
      mode: columns.has('mode') && !SHARED_BY_BOTH_MODES.has(metadata.tableName),
    });
  }
  return owners;
}

/** The TypeScript files of the service (apps and libs, not tests, specs, migrations or the dashboard). */
export function serviceFiles(): string[] {
  const files: string[] = [];
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'migrations' && entry.name !== 'node_modules') walk(path);
      } else if (
        entry.name.endsWith('.ts') &&
        !entry.name.endsWith('.spec.ts') &&
        !entry.name.endsWith('.d.ts')
      ) {
        files.push(relative(ROOT, path));
      }
    }
  };
  for (const top of ['libs', 'apps']) {
    for (const entry of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== 'dashboard')
        walk(join(ROOT, top, entry.name, 'src'));
    }
  }
  return files.sort();
}

export const isRepository = (file: string): boolean => file.endsWith('.repository.ts');

/** The lib a file belongs to (`libs/<lib>/…`), or null for an app. */
export function libOf(file: string): string | null {
  const match = /^libs\/([^/]+)\//.exec(file);
  return match ? match[1]! : null;
}

/**
 * Text that is a SQL statement, or a piece of one with its verb: what only
 * a repository may hold. Keywords in capitals, as every statement here is
 * written, so prose ("select a session from…") is not taken for SQL.
 */
const SQL_TEXT =
  /\bSELECT\b[\s\S]*\bFROM\b|\bSELECT \d\b|\bINSERT INTO\b|\bUPDATE [a-z_]+ (?:[a-z_]+ )?SET\b|\bDELETE FROM\b|\bpg_(?:try_)?advisory_\w*lock\w*\(|\blo_(?:create|open|put|get|unlink|from_bytea)\b|\bLOCK TABLE\b|\bTRUNCATE\b/;

/** Table names a statement reads or writes. */
const TABLE_REFERENCE = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE|USING)\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)/g;

/** What the ORM offers besides plain SQL: never used by the service (docs/architecture.md). */
const ORM_CALLS = new Set([
  'createQueryBuilder',
  'getRepository',
  'InjectRepository',
  'InjectEntityManager',
  'EntityManager',
  'QueryRunner',
  'createQueryRunner',
]);

export interface Finding {
  file: string;
  line: number;
  what: string;
}

interface ParsedFile {
  file: string;
  source: ts.SourceFile;
  /** Top-level `const NAME = <text>` of the file, with its text (templates with their holes blank). */
  constants: Map<string, string>;
  /** Top-level functions by name. */
  functions: Map<string, ts.FunctionDeclaration>;
  /** Imported names → the file (relative to ROOT) they come from, for relative imports. */
  imports: Map<string, string>;
  /** Top-level `const NAME = rowMapping('table', …)` of the file: NAME → table. */
  mappings: Map<string, string>;
}

const parsed = new Map<string, ParsedFile>();

function parse(file: string): ParsedFile {
  const known = parsed.get(file);
  if (known) return known;
  const source = ts.createSourceFile(
    file,
    readFileSync(join(ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const result: ParsedFile = {
    file,
    source,
    constants: new Map(),
    functions: new Map(),
    imports: new Map(),
    mappings: new Map(),
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.initializer) {
          result.constants.set(declaration.name.text, textOf(declaration.initializer));
          const table = mappedTable(declaration.initializer);
          if (table) result.mappings.set(declaration.name.text, table);
        }
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      result.functions.set(statement.name.text, statement);
    } else if (
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.moduleSpecifier.text.startsWith('.')
    ) {
      const target = relative(
        ROOT,
        resolve(ROOT, dirname(file), statement.moduleSpecifier.text.replace(/\.js$/, '.ts')),
      );
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          result.imports.set(element.name.text, target);
        }
      }
    }
  }
  parsed.set(file, result);
  return result;
}

/** Every piece of literal text under a node, joined; a `rowMapping('t', {…})` call as its insert. */
function textOf(node: ts.Node): string {
  const pieces: string[] = [];
  const visit = (child: ts.Node): void => {
    if (ts.isStringLiteral(child) || ts.isNoSubstitutionTemplateLiteral(child)) {
      pieces.push(child.text);
    } else if (ts.isTemplateExpression(child)) {
      pieces.push(child.head.text);
      for (const span of child.templateSpans) {
        visit(span.expression);
        pieces.push(span.literal.text);
      }
      return;
    } else if (
      ts.isCallExpression(child) &&
      ts.isIdentifier(child.expression) &&
      child.expression.text === 'rowMapping' &&
      child.arguments[0] &&
      ts.isStringLiteralLike(child.arguments[0])
    ) {
      const fields = child.arguments[1];
      const columns =
        fields && ts.isObjectLiteralExpression(fields)
          ? fields.properties.map((property) => property.name?.getText() ?? '').join(', ')
          : '';
      pieces.push(`INSERT INTO ${child.arguments[0].text} (${columns})`);
      return;
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return pieces.join(' ');
}

/** The table of a `rowMapping('table', …)` call. */
function mappedTable(node: ts.Node): string | null {
  return ts.isCallExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'rowMapping' &&
    node.arguments[0] &&
    ts.isStringLiteralLike(node.arguments[0])
    ? node.arguments[0].text
    : null;
}

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
}

/** SQL text and ORM calls outside repositories (libs/database, the infrastructure, aside). */
export function sqlOutsideRepositories(files: readonly string[]): Finding[] {
  const findings: Finding[] = [];
  for (const file of files) {
    if (isRepository(file) || file.startsWith('libs/database/')) continue;
    const { source } = parse(file);
    const visit = (node: ts.Node): void => {
      if (
        (ts.isStringLiteral(node) ||
          ts.isNoSubstitutionTemplateLiteral(node) ||
          ts.isTemplateExpression(node)) &&
        SQL_TEXT.test(textOf(node))
      ) {
        findings.push({ file, line: lineOf(source, node), what: 'SQL text' });
        return;
      }
      if (ts.isIdentifier(node) && ORM_CALLS.has(node.text)) {
        findings.push({ file, line: lineOf(source, node), what: `TypeORM ${node.text}` });
      }
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ['query', 'rows', 'statements', 'cursor'].includes(node.expression.name.text)
      ) {
        findings.push({
          file,
          line: lineOf(source, node),
          what: `runs a statement (.${node.expression.name.text})`,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return findings;
}

/** A method of a repository class with the SQL it runs (its own text, and the constants and functions it uses). */
interface RepositoryMethod {
  file: string;
  line: number;
  name: string;
  parameters: { name: string; type: string }[];
  sql: string;
}

function repositoryMethods(file: string): RepositoryMethod[] {
  const parsedFile = parse(file);
  const methods: RepositoryMethod[] = [];
  for (const statement of parsedFile.source.statements) {
    if (!ts.isClassDeclaration(statement)) continue;
    for (const member of statement.members) {
      if (!ts.isMethodDeclaration(member) || !member.body) continue;
      methods.push({
        file,
        line: lineOf(parsedFile.source, member),
        name: member.name.getText(),
        parameters: member.parameters.map((parameter) => ({
          name: parameter.name.getText(),
          type: parameter.type?.getText() ?? '',
        })),
        sql: reachableText(parsedFile, member.body, new Set()),
      });
    }
  }
  return methods;
}

/** The text of a body plus that of the file's constants and functions it names, and imported constants. */
function reachableText(file: ParsedFile, body: ts.Node, seen: Set<string>): string {
  const pieces = [textOf(body)];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const key = `${file.file}#${node.text}`;
      if (!seen.has(key)) {
        seen.add(key);
        const constant = file.constants.get(node.text);
        const fn = file.functions.get(node.text);
        const imported = file.imports.get(node.text);
        if (constant !== undefined) pieces.push(constant);
        else if (fn?.body) pieces.push(reachableText(file, fn.body, seen));
        else if (imported) {
          try {
            const other = parse(imported);
            const text = other.constants.get(node.text);
            const otherFn = other.functions.get(node.text);
            if (text !== undefined) pieces.push(text);
            else if (otherFn?.body) pieces.push(reachableText(other, otherFn.body, seen));
          } catch {
            // an import of something that is not a file of the tree (a directory index): no SQL there
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(body);
  return pieces.join(' ');
}

function tablesNamed(sql: string): Set<string> {
  return new Set([...sql.matchAll(TABLE_REFERENCE)].map((match) => match[1]!));
}

/** Repository SQL naming a table another lib owns (libs/database owns none). */
export function foreignTables(
  files: readonly string[],
  owners: ReadonlyMap<string, OwnedTable>,
): Finding[] {
  const findings: Finding[] = [];
  for (const file of files) {
    const lib = libOf(file);
    if (!isRepository(file) && !file.startsWith('libs/database/')) continue;
    const { source } = parse(file);
    const visit = (node: ts.Node): void => {
      if (
        ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateExpression(node) ||
        (ts.isCallExpression(node) && node.expression.getText() === 'rowMapping')
      ) {
        for (const table of tablesNamed(textOf(node))) {
          const owner = owners.get(table);
          if (owner && owner.lib !== lib) {
            findings.push({
              file,
              line: lineOf(source, node),
              what: `names ${table}, owned by libs/${owner.lib}`,
            });
          }
        }
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return findings;
}

const TENANT_TYPES = /^(?:Tenant|Principal)$/;

/**
 * Repository methods on tenant tables that do not take the tenant, or whose
 * SQL leaves the organisation (or the mode) out. Methods whose names end in
 * `AcrossTenants` cross tenants on purpose and are left alone.
 */
export function methodsWithoutTenant(
  files: readonly string[],
  owners: ReadonlyMap<string, OwnedTable>,
): Finding[] {
  const findings: Finding[] = [];
  for (const file of files.filter(isRepository)) {
    for (const method of repositoryMethods(file)) {
      if (method.name.endsWith('AcrossTenants')) continue;
      const tenantTables = [...tablesNamed(method.sql)]
        .map((table) => owners.get(table))
        .filter((owner): owner is OwnedTable => owner?.organization === true);
      if (tenantTables.length === 0) continue;
      const where = { file, line: method.line };
      const needsMode = tenantTables.some((owner) => owner.mode);
      const takesTenant = method.parameters.some((parameter) =>
        needsMode
          ? TENANT_TYPES.test(parameter.type)
          : TENANT_TYPES.test(parameter.type) || parameter.name === 'organizationId',
      );
      const tables = tenantTables.map((owner) => owner.table).join(', ');
      if (!takesTenant) {
        findings.push({
          ...where,
          what: `${method.name} runs SQL on ${tables} without a ${needsMode ? 'Tenant' : 'Tenant or organizationId'} parameter`,
        });
      } else if (
        !/\borganization_id\b/.test(method.sql) ||
        (needsMode && !/\bmode\b/.test(method.sql))
      ) {
        findings.push({
          ...where,
          what: `${method.name} takes the tenant but its SQL on ${tables} does not apply it`,
        });
      }
    }
  }
  return findings;
}

/**
 * Tables whose finished rows are history cases (libs/history's `CaseSource`
 * besides imports): each write of one must keep its case in the same
 * transaction, through libs/history's WorkCasesRepository.
 */
const CASE_SOURCES = new Set(['sessions', 'analyses', 'dowsing_queries']);

/** Tables a statement inserts into, updates or deletes from. */
const WRITE_REFERENCE =
  /\b(?:INSERT INTO|DELETE FROM)\s+([a-z_][a-z0-9_]*)|\bUPDATE\s+([a-z_][a-z0-9_]*)\s+(?:[a-z_]+\s+)?SET\b/g;

/**
 * Repository methods that insert, update or delete work (sessions, analyses,
 * dowsing queries) without going through the history's case writer: the
 * method must call it, or call a method of its class that does.
 */
export function workWritesWithoutCases(files: readonly string[]): Finding[] {
  const findings: Finding[] = [];
  for (const file of files.filter(isRepository)) {
    const parsedFile = parse(file);
    for (const statement of parsedFile.source.statements) {
      if (!ts.isClassDeclaration(statement)) continue;
      const writer = caseWriterProperty(statement);
      const methods = statement.members.filter(
        (member): member is ts.MethodDeclaration & { body: ts.Block } =>
          ts.isMethodDeclaration(member) && member.body !== undefined,
      );
      const usesWriter = (body: ts.Node): boolean =>
        writer !== null && containsThisAccess(body, writer);
      const keepingCases = new Set([
        ...methods
          .filter((method) => usesWriter(method.body))
          .map((method) => method.name.getText()),
        // A work table (libs/work's WorkTable) keeps the cases of whatever goes through these.
        ...(extendsWorkTable(statement) ? WORK_TABLE_WRITES : []),
      ]);
      for (const method of methods) {
        const written = writtenTables(parsedFile, method.body);
        const sources = [...written].filter((table) => CASE_SOURCES.has(table));
        if (sources.length === 0) continue;
        const keeps =
          usesWriter(method.body) ||
          [...keepingCases].some((name) => containsThisAccess(method.body, name));
        if (!keeps) {
          findings.push({
            file,
            line: lineOf(parsedFile.source, method),
            what: `${method.name.getText()} writes ${sources.join(', ')} without keeping the history cases (WorkCasesRepository)`,
          });
        }
      }
    }
  }
  return findings;
}

/** The methods of libs/work's WorkTable that write work and keep its history cases. */
const WORK_TABLE_WRITES = ['write', 'insert', 'update', 'markFailed', 'delete'];

function extendsWorkTable(declaration: ts.ClassDeclaration): boolean {
  return (declaration.heritageClauses ?? []).some((clause) =>
    clause.types.some((type) => type.expression.getText() === 'WorkTable'),
  );
}

/** The constructor parameter holding libs/history's WorkCasesRepository, if the class takes one. */
function caseWriterProperty(declaration: ts.ClassDeclaration): string | null {
  for (const member of declaration.members) {
    if (!ts.isConstructorDeclaration(member)) continue;
    for (const parameter of member.parameters) {
      if (parameter.type?.getText() === 'WorkCasesRepository') return parameter.name.getText();
    }
  }
  return null;
}

/** Whether a body reads `this.<name>`. */
function containsThisAccess(body: ts.Node, name: string): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAccessExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ThisKeyword &&
      node.name.text === name
    ) {
      found = true;
    }
    if (!found) ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

/**
 * Tables a method body writes: its SQL text and the file's constants it
 * names, where a row mapping counts as a write only through its `insert`.
 */
function writtenTables(file: ParsedFile, body: ts.Node): Set<string> {
  const pieces = [textOf(body)];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const table = file.mappings.get(node.text);
      const parent = node.parent;
      if (table !== undefined) {
        if (
          ts.isPropertyAccessExpression(parent) &&
          parent.expression === node &&
          parent.name.text === 'insert'
        ) {
          pieces.push(`INSERT INTO ${table}`);
        }
      } else {
        const constant = file.constants.get(node.text);
        if (constant !== undefined) pieces.push(constant);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(body);
  return new Set(
    [...pieces.join(' ').matchAll(WRITE_REFERENCE)].map((match) => (match[1] ?? match[2])!),
  );
}
