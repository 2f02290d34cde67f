import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureCliBuilt, runCli, tempHome } from '../packages/cli/e2e/harness.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * `sas` driven as a subprocess against the real API and worker: login and
 * its file, whoami for both kinds of credential, sessions with --wait and
 * its progress, lists with --status and --limit, --json, errors with the
 * request id, exit codes, help and completion.
 */

let stack: Stack;
let org: TestOrganization;

beforeAll(async () => {
  ensureCliBuilt();
  stack = await startStack();
  org = await createOrganization(stack, await TestClient.for(stack), 'test');
});
afterAll(async () => {
  await stack?.close();
});

describe('login and whoami', () => {
  it('stores an API key in $XDG_CONFIG_HOME/sas/config.json, mode 0600 in a 0700 directory', async () => {
    const { home, configHome } = tempHome();
    const key = await org.apiKey();
    const env = cliEnv(home);
    const login = await runCli(['login', '--api-key', key, '--api-url', stack.baseUrl], env);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('Logged in: profile "default"');
    const path = join(configHome, 'sas', 'config.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(configHome, 'sas')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      profiles: { default: { api_url: stack.baseUrl, api_key: key } },
    });

    const whoami = await runCli(['whoami', '--json'], env);
    expect(whoami.code).toBe(0);
    const identity = JSON.parse(whoami.stdout);
    expect(identity).toMatchObject({
      api_url: stack.baseUrl,
      source: 'profile default',
      credential: 'api_key',
      mode: 'test',
      key_name: 'test key',
      notes: [],
    });
    expect(identity.organization_id).toMatch(/^org_/);
    expect(identity.scopes).toContain('remote-viewing:write');

    const human = await runCli(['whoami'], env);
    expect(human.stdout).toMatch(/credential:\s+api_key/);
    expect(human.stdout).toContain(identity.organization_id);
  });

  it('stores client credentials under --profile, and whoami introspects their token', async () => {
    const { home } = tempHome();
    const env = cliEnv(home);
    const login = await runCli(
      [
        'login',
        '--profile',
        'ci',
        '--client-id',
        org.clientId,
        '--client-secret',
        org.clientSecret,
        '--api-url',
        stack.baseUrl,
        '--json',
      ],
      env,
    );
    expect(login.code).toBe(0);
    expect(JSON.parse(login.stdout).identity).toMatchObject({ credential: 'client_credentials' });
    // No default profile: not logged in.
    const none = await runCli(['whoami'], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('not logged in');
    const whoami = await runCli(['whoami', '--profile', 'ci', '--json'], env);
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      credential: 'client_credentials',
      client_id: org.clientId,
      mode: 'test',
      source: 'profile ci',
    });
    expect(JSON.parse(whoami.stdout).organization_id).toMatch(/^org_/);
  });

  it('the environment wins over the stored profile', async () => {
    const { home } = tempHome();
    await runCli(
      ['login', '--api-key', 'sk_test_stale', '--no-verify', '--api-url', 'http://127.0.0.1:9'],
      cliEnv(home),
    );
    const whoami = await runCli(
      ['whoami', '--json'],
      cliEnv(home, {
        SAS_API_URL: stack.baseUrl,
        SAS_CLIENT_ID: org.clientId,
        SAS_CLIENT_SECRET: org.clientSecret,
      }),
    );
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      source: 'environment',
      credential: 'client_credentials',
    });
  });

  it('refuses a wrong key without writing anything, quoting the request id', async () => {
    const { home, configHome } = tempHome();
    const login = await runCli(
      [
        'login',
        '--api-key',
        'sk_test_000000000000000000000000000000000000',
        '--api-url',
        stack.baseUrl,
      ],
      cliEnv(home),
    );
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('refused the credential');
    expect(() => statSync(join(configHome, 'sas', 'config.json'))).toThrow();
  });
});

describe('sessions, analyses, dowsing, history', () => {
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    env = cliEnv(tempHome().home, { SAS_API_URL: stack.baseUrl, SAS_API_KEY: await org.apiKey() });
  });

  it('sessions create --wait shows the progress and ends completed', async () => {
    const created = await runCli(
      [
        'sessions',
        'create',
        '--type',
        'remote_viewing',
        '--target',
        'Envelope 4711',
        '--modality',
        'visual',
        '--duration',
        '15',
        '--wait',
      ],
      env,
    );
    expect(created.code).toBe(0);
    const progress = [...created.stderr.matchAll(/^(sess_\w+) progress (\d+)%$/gm)];
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)![2]).toBe('100');
    const numbers = progress.map((match) => Number(match[2]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(created.stdout).toMatch(/status:\s+completed/);
    expect(created.stdout).toMatch(/modality:\s+visual/);

    const json = await runCli(
      ['sessions', 'create', '--target', 'Envelope 4712', '--wait', '--json'],
      env,
    );
    expect(json, json.stdout + json.stderr).toMatchObject({ code: 0, stderr: '' });
    const session = JSON.parse(json.stdout);
    expect(session).toMatchObject({ status: 'completed', progress: 100 });

    const results = await runCli(['sessions', 'results', session.session_id, '--json'], env);
    expect(results.code).toBe(0);
    expect(JSON.parse(results.stdout)).toBeTypeOf('object');
    const got = await runCli(['sessions', 'get', session.session_id, '--json'], env);
    expect(JSON.parse(got.stdout).session_id).toBe(session.session_id);
  });

  it('sessions list --status --limit, as a table and as JSON', async () => {
    for (let i = 0; i < 3; i += 1) {
      await runCli(['sessions', 'create', '--target', `List ${i}`, '--wait', '--json'], env);
    }
    const list = await runCli(
      ['sessions', 'list', '--status', 'completed', '--limit', '2', '--json'],
      env,
    );
    expect(list.code).toBe(0);
    const sessions = JSON.parse(list.stdout);
    expect(sessions).toHaveLength(2);
    expect(sessions.every((session: any) => session.status === 'completed')).toBe(true);
    const table = await runCli(['sessions', 'list', '--limit', '3'], env);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SESSION_ID\s+TYPE\s+STATUS\s+PROGRESS\s+CREATED_AT$/);
    expect(lines).toHaveLength(4);
    // No colours when stdout is not a terminal.
    expect(table.stdout).not.toContain('\u001b[');

    const bad = await runCli(['sessions', 'list', '--status', 'finished'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("argument 'finished' is invalid");
  });

  it('sessions cancel, analyses and dowsing, history search', async () => {
    const analysis = await runCli(
      [
        'analyses',
        'create',
        '--target-type',
        'location',
        '--description',
        'A lighthouse',
        '--wait',
        '--json',
      ],
      env,
    );
    expect(analysis.code).toBe(0);
    const done = JSON.parse(analysis.stdout);
    expect(done.status).toBe('completed');
    const listed = await runCli(
      ['analyses', 'list', '--status', 'completed', '--limit', '5', '--json'],
      env,
    );
    expect(JSON.parse(listed.stdout).map((item: any) => item.analysis_id)).toContain(
      done.analysis_id,
    );
    expect((await runCli(['analyses', 'results', done.analysis_id, '--json'], env)).code).toBe(0);

    const query = await runCli(
      ['dowsing', 'query', 'Is the key in the garden?', '--wait', '--json'],
      env,
    );
    expect(query.code).toBe(0);
    const answered = JSON.parse(query.stdout);
    expect(answered.status).toBe('completed');
    const got = await runCli(['dowsing', 'get', answered.query_id, '--json'], env);
    expect(JSON.parse(got.stdout).query_id).toBe(answered.query_id);
    const dowsingList = await runCli(['dowsing', 'list', '--limit', '1', '--json'], env);
    expect(JSON.parse(dowsingList.stdout)).toHaveLength(1);

    const history = await runCli(['history', 'search', '--limit', '3', '--json'], env);
    expect(history.code).toBe(0);
    expect(Array.isArray(JSON.parse(history.stdout))).toBe(true);

    const started = JSON.parse(
      (
        await runCli(
          ['sessions', 'create', '--target', 'To cancel', '--duration', '60', '--json'],
          env,
        )
      ).stdout,
    );
    const cancelled = await runCli(['sessions', 'cancel', started.session_id, '--json'], env);
    // Cancelled while running, or already done (the simulator is quick): 0, or 1 with a 409.
    expect([0, 1]).toContain(cancelled.code);
  });

  it('an error names the code and the request id, and exits 1', async () => {
    const missing = await runCli(['sessions', 'get', 'sess_00000000000000000000000000'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: /);
    expect(missing.stderr).toMatch(/code:\s+NOT_FOUND \(HTTP 404\)/);
    expect(missing.stderr).toMatch(/request id: req_\w+/);

    const json = await runCli(
      ['sessions', 'get', 'sess_00000000000000000000000000', '--json'],
      env,
    );
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(JSON.parse(json.stdout).error.request_id).toMatch(/^req_/);
  });
});

describe('usage, help and completion', () => {
  const env = cliEnv(tempHome().home);

  it('exit codes: 0 for help and version, 2 for a wrong command line', async () => {
    expect((await runCli(['--help'], env)).code).toBe(0);
    expect((await runCli(['--version'], env)).stdout.trim()).toBe('2.0.0');
    expect((await runCli(['sessions', 'get'], env)).code).toBe(2);
    expect((await runCli(['no-such-command'], env)).code).toBe(2);
    expect(
      (await runCli(['sessions', 'create', '--target', 'x', '--duration', 'soon'], env)).code,
    ).toBe(2);
  });

  it('refuses a plain http:// API address to another machine without --insecure (exit 2)', async () => {
    const withKey = { ...env, SAS_API_KEY: 'sk_test_not-sent-anywhere' };
    for (const args of [
      ['whoami', '--api-url', 'http://api.example.com'],
      ['login', '--api-key', 'sk_test_x', '--api-url', 'http://api.example.com'],
    ]) {
      const refused = await runCli(args, withKey);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain('refusing plain http to api.example.com');
      expect(refused.stderr).toContain('--insecure');
    }
    const fromEnvironment = await runCli(['whoami'], {
      ...withKey,
      SAS_API_URL: 'http://api.example.com',
    });
    expect(fromEnvironment.code).toBe(2);
  });

  it('prints completion scripts for bash, zsh and fish', async () => {
    const bash = await runCli(['completion', 'bash'], env);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain('complete -F _sas_complete sas');
    expect(bash.stdout).toContain('"sessions") words_="create list get results cancel');
    expect((await runCli(['completion', 'zsh'], env)).stdout).toMatch(/^#compdef sas/);
    expect((await runCli(['completion', 'fish'], env)).stdout).toContain(
      "complete -c sas -n '__fish_seen_subcommand_from migrate' -a check",
    );
    expect((await runCli(['completion', 'tcsh'], env)).code).toBe(2);
  });
});
