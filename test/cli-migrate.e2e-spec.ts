import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_RULES } from '@sas/sdk/v1';
import {
  cliEnv,
  ensureCliBuilt,
  REPO_ROOT,
  runCli,
  tempHome,
} from '../packages/cli/e2e/harness.js';

/**
 * `sas migrate check` and `apply` on fixture projects: one with every 1.x
 * call (TypeScript and JavaScript, the client in a variable, a field, a
 * parameter property, a parameter, a JS this-assignment; verifySignature
 * under an alias; look-alikes in comments, strings and other objects), one
 * with none, and one whose changes are all automatic, whose rewrite must
 * type-check against @sas/sdk.
 */

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'migration');
const env = cliEnv(tempHome().home);

beforeAll(() => ensureCliBuilt());

function copyOf(fixture: string): string {
  const directory = mkdtempSync(join(tmpdir(), `sas-migrate-${fixture}-`));
  cpSync(join(FIXTURES, fixture), directory, { recursive: true });
  return directory;
}

/** Each finding as `file:line kind automatic|manual old => new`. */
function lines(changes: any[]): string[] {
  return changes.map(
    (change) =>
      `${change.file}:${change.line} ${change.kind} ${change.automatic ? 'automatic' : 'manual'} ${change.old} => ${change.new}`,
  );
}

describe('sas migrate check', () => {
  it('finds every 1.x call of the fixture, with its 2.0 form, and exits 1', async () => {
    const result = await runCli(['migrate', 'check', join(FIXTURES, 'with-1x'), '--json'], env);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toEqual({ total: 25, automatic: 20, manual: 5, files: 5 });
    expect(lines(report.changes)).toEqual([
      "src/client.ts:1 import automatic import { SasClient } from '@sas/sdk/v1'; => import { Client } from '@sas/sdk';",
      'src/client.ts:4 type automatic SasClient => Client',
      "src/client.ts:5 constructor automatic new SasClient({ apiKey, baseUrl: 'https://sas.example.com' }) => new Client({ baseUrl: 'https://sas.example.com', apiKey })",
      "src/legacy.mjs:1 import automatic import { SasClient } from '@sas/sdk/v1'; => import { Client } from '@sas/sdk';",
      "src/legacy.mjs:5 constructor automatic new SasClient({ baseUrl: 'http://localhost:3000', apiKey }) => new Client({ baseUrl: 'http://localhost:3000', apiKey })",
      'src/legacy.mjs:9 call automatic this.sas.sessions.retrieve(id) => this.sas.sessions.get(id)',
      "src/reports.ts:1 import automatic import { SasClient } from '@sas/sdk/v1'; => import { Client } from '@sas/sdk';",
      'src/reports.ts:5 type automatic SasClient => Client',
      "src/reports.ts:8 call automatic this.sas.analysis.submit({ target_type: 'location', description }) => this.sas.analyses.create({ target_type: 'location', description })",
      'src/reports.ts:9 call automatic this.sas.analysis.retrieve(submitted.analysis_id) => this.sas.analyses.get(submitted.analysis_id)',
      'src/reports.ts:10 call automatic this.sas.analysis.getResults(analysis.analysis_id) => this.sas.analyses.results(analysis.analysis_id)',
      "src/reports.ts:16 constructor automatic new SasClient({ apiKey: 'sk_test_archive', maxRetries: 1 }) => new Client({ baseUrl: 'https://api.example.com', apiKey: 'sk_test_archive', maxRetries: 1 })",
      'src/reports.ts:19 call manual this.client.history.search({ q, limit: 10 }) => this.client.history.search({ q, limit: 10 })',
      'src/reports.ts:24 type automatic SasClient => Client',
      "src/reports.ts:25 call automatic client.dowsing.query({ query_type: 'yes_no', question }) => client.dowsing.create({ query_type: 'yes_no', question })",
      'src/reports.ts:26 call manual client.dowsing.retrieve(query.query_id) => client.dowsing.get(query.query_id)',
      "src/sessions.ts:1 import automatic import { SasClient } from '@sas/sdk/v1'; => import { Client } from '@sas/sdk';",
      "src/sessions.ts:4 constructor automatic new SasClient({ apiKey }) => new Client({ baseUrl: 'https://api.example.com', apiKey })",
      "src/sessions.ts:5 call manual sas.sessions.create({ session_type: 'remote_viewing', cue: target }) => sas.sessions.create({ session_type: 'remote_viewing', cue: target })",
      'src/sessions.ts:6 call automatic sas.sessions.retrieve(created.session_id) => sas.sessions.get(created.session_id)',
      'src/sessions.ts:8 call automatic sas.sessions.getResults(status.session_id) => sas.sessions.results(status.session_id)',
      "src/sessions.ts:9 call manual sas.sessions.list({ status: 'completed', limit: 5 }) => sas.sessions.list({ status: 'completed', limit: 5 })",
      'src/sessions.ts:10 call automatic sas.sessions.cancel(created.session_id) => sas.sessions.cancel(created.session_id)',
      "src/webhook.ts:1 import automatic import { verifySignature as checkSignature } from '@sas/sdk/v1'; => import { verifyWebhook } from '@sas/sdk';",
      "src/webhook.ts:4 call manual checkSignature(rawBody, signature, secret) => verifyWebhook(secret, rawBody, { 'x-service-signature': signature })",
    ]);
    // Whether a call is automatic, and what it means, come from the SDK's MIGRATION_RULES.
    const submit = report.changes.find((change: any) => change.old.includes('analysis.submit'));
    const rule = MIGRATION_RULES.find((candidate) => candidate.method === 'submit')!;
    expect(submit).toMatchObject({ automatic: rule.automatic, note: rule.note, column: 29 });
    // Every rule is exercised by the fixture.
    for (const { receiver, method } of MIGRATION_RULES) {
      const called = receiver === null ? 'checkSignature(' : `.${receiver}.${method}(`;
      expect(report.changes.some((change: any) => change.old.includes(called))).toBe(true);
    }
  });

  it('prints a human report with file:line, the old and new call, and the counts', async () => {
    const result = await runCli(['migrate', 'check', join(FIXTURES, 'with-1x')], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      [
        'src/sessions.ts:6  call (automatic)',
        '  - sas.sessions.retrieve(created.session_id)',
        '  + sas.sessions.get(created.session_id)',
      ].join('\n'),
    );
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      '25 changes in 5 files: 20 automatic (sas migrate apply), 5 by hand.',
    );
  });

  it('finds nothing in a project without 1.x calls, and exits 0', async () => {
    const result = await runCli(['migrate', 'check', join(FIXTURES, 'none'), '--json'], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      files_scanned: 1,
      summary: { total: 0 },
      changes: [],
    });
    const human = await runCli(['migrate', 'check', join(FIXTURES, 'none')], env);
    expect(human.stdout.trim()).toBe('No 1.x SDK calls in 1 files: nothing to migrate.');
  });

  it('a path that does not exist is a usage error', async () => {
    expect((await runCli(['migrate', 'check', join(FIXTURES, 'missing')], env)).code).toBe(2);
  });
});

describe('sas migrate apply', () => {
  it('rewrites the automatic changes, marks the rest, and exits 1 while some are left', async () => {
    const project = copyOf('with-1x');
    const result = await runCli(['migrate', 'apply', project, '--json'], env);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.applied).toHaveLength(19);
    expect(report.remaining.map((change: any) => `${change.file}:${change.line}`)).toEqual([
      'src/reports.ts:19',
      'src/reports.ts:26',
      'src/sessions.ts:5',
      'src/sessions.ts:9',
      'src/webhook.ts:1',
      'src/webhook.ts:4',
    ]);
    expect(readFileSync(join(project, 'src', 'sessions.ts'), 'utf8')).toBe(
      readFileSync(join(FIXTURES, 'with-1x', 'src', 'sessions.ts'), 'utf8')
        .replace("import { SasClient } from '@sas/sdk/v1';", "import { Client } from '@sas/sdk';")
        .replace(
          'new SasClient({ apiKey })',
          "new Client({ baseUrl: 'https://api.example.com', apiKey })",
        )
        .replace(
          '  const created',
          "  // TODO(sas migrate): sas.sessions.create({ session_type: 'remote_viewing', cue: target }) — " +
            `${MIGRATION_RULES.find((rule) => rule.method === 'create')!.note}\n  const created`,
        )
        .replace('sas.sessions.retrieve(created', 'sas.sessions.get(created')
        .replace('sas.sessions.getResults(', 'sas.sessions.results(')
        .replace(
          '  const page',
          "  // TODO(sas migrate): sas.sessions.list({ status: 'completed', limit: 5 }) — " +
            `${MIGRATION_RULES.find((rule) => rule.receiver === 'sessions' && rule.method === 'list')!.note}\n  const page`,
        ),
    );
    expect(readFileSync(join(project, 'src', 'legacy.mjs'), 'utf8')).toContain(
      "this.sas = new Client({ baseUrl: 'http://localhost:3000', apiKey });",
    );
    // verifySignature stays imported from 1.x until its call is changed by hand.
    expect(readFileSync(join(project, 'src', 'webhook.ts'), 'utf8')).toMatch(
      /^import \{ verifySignature as checkSignature \} from '@sas\/sdk\/v1';/,
    );
    // Afterwards only the hand-made changes are left for the check to report.
    const after = JSON.parse((await runCli(['migrate', 'check', project, '--json'], env)).stdout);
    expect(
      after.changes.map((change: any) => `${change.file}:${change.line} ${change.kind}`),
    ).toEqual(['src/webhook.ts:1 import', 'src/webhook.ts:5 call']);
  });

  it('a project whose changes are all automatic is fully migrated and type-checks against @sas/sdk', async () => {
    const project = copyOf('automatic');
    const result = await runCli(['migrate', 'apply', project], env);
    expect(result.stdout).toBe('Rewrote 10 changes in 1 files.\n');
    expect(result.code).toBe(0);
    expect((await runCli(['migrate', 'check', project], env)).code).toBe(0);
    const rewritten = readFileSync(join(project, 'src', 'work.ts'), 'utf8');
    expect(rewritten).not.toContain('@sas/sdk/v1');
    expect(rewritten).toContain(
      "private readonly sas = new Client({ baseUrl: 'https://api.example.com', apiKey: 'sk_test_automatic' });",
    );
    expect(rewritten).toContain('this.sas.analyses.create({');
    // The rewritten project against the built @sas/sdk, as an application would compile it.
    mkdirSync(join(project, 'node_modules', '@sas'), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'packages', 'sdk'), join(project, 'node_modules', '@sas', 'sdk'));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['src/**/*.ts'],
      }),
    );
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    execFileSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
      {
        stdio: 'pipe',
      },
    );
  });
});
