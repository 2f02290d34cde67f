import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { glob, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ensureCliBuilt, REPO_ROOT } from '../packages/cli/e2e/harness.js';

/**
 * Both packages as a user gets them: `npm pack` of @sas/sdk and @sas/cli,
 * installed from the tarballs into an empty directory (the CLI's own
 * dependencies come from the registry), then `npx sas --help` and an import
 * of @sas/sdk from there. Needs the SDK built (`npm run build`).
 */
it('npm pack of @sas/sdk and @sas/cli installs into an empty directory and runs', () => {
  ensureCliBuilt();
  const packed = mkdtempSync(join(tmpdir(), 'sas-pack-'));
  const app = mkdtempSync(join(tmpdir(), 'sas-app-'));
  const npm = (args: string[], cwd: string) =>
    execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  npm(['pack', '-w', '@sas/sdk', '-w', '@sas/cli', '--pack-destination', packed], REPO_ROOT);
  const tarballs = readdirSync(packed).sort();
  expect(tarballs).toEqual(['sas-cli-2.0.0.tgz', 'sas-sdk-2.0.0.tgz']);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  npm(
    ['install', '--no-audit', '--no-fund', ...tarballs.map((tarball) => join(packed, tarball))],
    app,
  );
  const help = npm(['exec', '--offline', '--', 'sas', '--help'], app);
  expect(help).toMatch(/^Usage: sas \[options\] \[command\]/);
  expect(help).toContain('migrate');
  const imported = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { Client, verifyWebhook } from '@sas/sdk'; import { MIGRATION_RULES } from '@sas/sdk/v1'; console.log(typeof Client, typeof verifyWebhook, MIGRATION_RULES.length);",
    ],
    { cwd: app, encoding: 'utf8' },
  );
  expect(imported.trim()).toMatch(/^function function \d+$/);
});

/**
 * `sas` from a clone of the repository, as the READMEs say to run it: the workspace links its
 * bin into node_modules/.bin. `--no` (and, for the bare form, offline npm) makes sure it is the
 * workspace's: the registry's `sas` is an unrelated package.
 */
it('runs as npx sas from the repository root, from the workspace', () => {
  ensureCliBuilt();
  const npx = (args: string[]) =>
    execFileSync('npx', args, {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, npm_config_offline: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  for (const args of [
    ['--no', '--', 'sas', '--help'],
    ['sas', '--help'],
  ]) {
    const help = npx(args);
    expect(help, `npx ${args.join(' ')}`).toMatch(/^Usage: sas \[options\] \[command\]/);
    expect(help).toContain('The command-line tool of the Session and Analysis Service');
  }
});

/** An install or run of an `@sas/…` name, which the registry would answer (404, or a stranger's). */
const REGISTRY_INSTALL =
  /\b(?:npm\s+(?:install|i|in|ins|inst|insta|instal|isnt|isnta|isntal|isntall|add|update|up|upgrade|exec|x)|npx|pnpm\s+(?:add|install|i|dlx|exec)|pnpx|yarn\s+(?:global\s+)?(?:add|dlx)|bunx|bun\s+(?:add|install|i|x))\b[^\n`]*?\s['"]?@sas\//g;
/** `npx sas` or `npm exec sas`: the flags before `sas` must refuse a download (--no). */
const RUN_SAS = /\b(?:npx|npm\s+exec)((?:\s+-\S*)*)\s+sas\b/g;

it('names no install command that reaches a registry for the unpublished @sas packages', async () => {
  const files: string[] = [];
  for await (const file of glob(['**/*.md', 'packages/cli/src/**/*.ts', 'apps/cli/src/**/*.ts'], {
    cwd: REPO_ROOT,
    exclude: (path) => /(^|\/)(node_modules|dist|\.git|coverage|\.data)$/.test(path),
  })) {
    files.push(file);
  }
  expect(files).toContain('packages/cli/README.md');
  const offending: string[] = [];
  for (const file of files) {
    const text = await readFile(join(REPO_ROOT, file), 'utf8');
    for (const match of text.matchAll(REGISTRY_INSTALL)) offending.push(`${file}: ${match[0]}`);
    for (const match of text.matchAll(RUN_SAS)) {
      if (!/\s--no(-install)?\b/.test(match[1]!)) offending.push(`${file}: ${match[0]}`);
    }
  }
  expect(offending).toEqual([]);
});
