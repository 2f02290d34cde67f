import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

/**
 * The guides stay true to the tree (issue 43): every relative link of the
 * README and docs/ reaches a file and, with a `#fragment`, a heading of it
 * (GitHub's anchors); every repository path a guide names in code (`libs/…`)
 * exists; every docs page the source code cites exists. Read with a markdown
 * lexer, so links and paths inside code blocks are not mistaken for either.
 */

const ROOT = resolve(import.meta.dirname, '..');
/** Top-level folders of the repository: a code span starting with one of them names a path. */
const TREE_ROOTS = ['apps', 'bench', 'deploy', 'docs', 'libs', 'packages', 'scripts', 'test'];
/** Source folders whose comments may cite docs pages. */
const SOURCE_ROOTS = ['apps', 'bench', 'libs', 'packages', 'scripts', 'test'];

function filesUnder(folder: string, keep: (path: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.'))
        continue;
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (keep(full)) found.push(full);
    }
  };
  walk(join(ROOT, folder));
  return found;
}

/** The guides: the README, docs/ and the README of each folder that has one. */
function guides(): string[] {
  const readmes = ['bench', 'deploy', 'packages/sdk', 'packages/cli']
    .map((folder) => join(ROOT, folder, 'README.md'))
    .filter((path) => existsSync(path));
  return [
    join(ROOT, 'README.md'),
    ...filesUnder('docs', (path) => path.endsWith('.md')),
    ...readmes,
  ];
}

function tokensOf(path: string): Token[] {
  return new Lexer({ gfm: true }).lex(readFileSync(path, 'utf8'));
}

/** Every token of the tree, depth first (lists, tables and quotes hold their own). */
function* walk(tokens: readonly Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    const nested = token as Token & {
      tokens?: Token[];
      items?: Tokens.ListItem[];
      header?: Tokens.TableCell[];
      rows?: Tokens.TableCell[][];
    };
    if (nested.tokens) yield* walk(nested.tokens);
    if (nested.items) yield* walk(nested.items);
    if (nested.header) for (const cell of nested.header) yield* walk(cell.tokens);
    if (nested.rows)
      for (const row of nested.rows) for (const cell of row) yield* walk(cell.tokens);
  }
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors GitHub gives a markdown file's headings. */
function anchorsOf(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (!anchors) {
    const slugger = new GithubSlugger();
    anchors = new Set(
      [...walk(tokensOf(path))]
        .filter((token): token is Tokens.Heading => token.type === 'heading')
        .map((heading) => slugger.slug(heading.text.replace(/`/g, ''))),
    );
    anchorCache.set(path, anchors);
  }
  return anchors;
}

function brokenLinks(guide: string): string[] {
  const broken: string[] = [];
  for (const token of walk(tokensOf(guide))) {
    if (token.type !== 'link' && token.type !== 'image') continue;
    const href = (token as Tokens.Link).href;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto: and the like
    const [pathPart, fragment] = href.split('#') as [string, string | undefined];
    const target = pathPart === '' ? guide : resolve(dirname(guide), decodeURIComponent(pathPart));
    const where = `${relative(ROOT, guide)}: ${href}`;
    if (!existsSync(target)) broken.push(`${where} (no such file)`);
    else if (fragment && target.endsWith('.md') && !anchorsOf(target).has(fragment))
      broken.push(`${where} (no such heading)`);
  }
  return broken;
}

/** A code span naming a path of the tree, without wildcards or placeholders. */
function namedPath(text: string): string | null {
  const path = text.replace(/:\d+(-\d+)?$/, '').replace(/#.*$/, '');
  if (!TREE_ROOTS.some((root) => path.startsWith(`${root}/`))) return null;
  if (/[*<>{}$\s…]|\.\.\./.test(path)) return null;
  return path;
}

/** What git ignores is output a run makes (bench/results/…), not a file of the tree. */
function ignoredByGit(path: string): boolean {
  return spawnSync('git', ['check-ignore', '-q', path], { cwd: ROOT }).status === 0;
}

function missingPaths(guide: string): string[] {
  return [...walk(tokensOf(guide))]
    .filter((token): token is Tokens.Codespan => token.type === 'codespan')
    .map((token) => namedPath(token.text))
    .filter((path): path is string => path !== null && !existsSync(join(ROOT, path)))
    .filter((path) => !ignoredByGit(path))
    .map((path) => `${relative(ROOT, guide)}: ${path}`);
}

describe('the guides', () => {
  it('are found', () => {
    expect(guides().length).toBeGreaterThan(20);
  });

  it('link only to files and headings that exist', () => {
    expect(guides().flatMap(brokenLinks)).toEqual([]);
  });

  it('name only paths of the tree that exist', () => {
    expect(guides().flatMap(missingPaths)).toEqual([]);
  });

  it('notice a broken link, a missing heading and a missing path (the checks above can fail)', () => {
    const folder = mkdtempSync(join(tmpdir(), 'docs-links-'));
    try {
      const guide = join(folder, 'guide.md');
      writeFileSync(
        guide,
        '# Here\n\n[gone](gone.md), [here](#here), [nowhere](#nowhere), `libs/no-such-lib/src/index.ts`, `libs/*/src/entities.ts`\n',
      );
      expect(brokenLinks(guide)).toEqual([
        `${relative(ROOT, guide)}: gone.md (no such file)`,
        `${relative(ROOT, guide)}: #nowhere (no such heading)`,
      ]);
      expect(missingPaths(guide)).toEqual([
        `${relative(ROOT, guide)}: libs/no-such-lib/src/index.ts`,
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('the source code', () => {
  it('cites only docs pages that exist', () => {
    const cited = SOURCE_ROOTS.flatMap((root) =>
      filesUnder(root, (path) => /\.(ts|tsx|mjs|js)$/.test(path)),
    ).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bdocs\/[\w./-]+\.md\b/g)]
        .map((match) => match[0])
        .filter((page) => !existsSync(join(ROOT, page)))
        .map((page) => `${relative(ROOT, file)}: ${page}`),
    );
    expect(cited).toEqual([]);
  });
});
