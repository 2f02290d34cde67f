import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
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
}, 300_000);
