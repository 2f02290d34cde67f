import { Client } from '@sas/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureCliBuilt, runCli, tempHome } from '../packages/cli/e2e/harness.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * `sas audit list` as a subprocess against the real API: the table, --json,
 * --ndjson streamed from the SDK's export, the filters, and the exit codes
 * of a refusal and of a wrong command line.
 */

let stack: Stack;
let org: TestOrganization;
let env: NodeJS.ProcessEnv;
/** A key without organizations:read. */
let narrowKey: string;
/** The ids of the keys created, oldest first: the organisation's newest events. */
const keyIds: string[] = [];
/** When the first of them was created (its audit event's `created_at`). */
let firstAt: string;

beforeAll(async () => {
  ensureCliBuilt();
  stack = await startStack({ worker: false });
  org = await createOrganization(stack, await TestClient.for(stack), 'live');
  // The CLI's own keys first: making a key is an event too.
  env = cliEnv(tempHome().home, { SAS_API_URL: stack.baseUrl, SAS_API_KEY: await org.apiKey() });
  narrowKey = await org.apiKey(['remote-viewing:read']);
  const client = new Client({
    baseUrl: stack.baseUrl,
    clientId: org.clientId,
    clientSecret: org.clientSecret,
  });
  for (let i = 0; i < 25; i += 1) {
    keyIds.push(
      (await client.apiKeys.create({ name: `cli audit ${i}`, scopes: ['remote-viewing:read'] })).id,
    );
  }
  [{ created_at: firstAt }] = await client.auditEvents.list({ target_id: keyIds[0] }).toArray();
});
afterAll(async () => {
  await stack?.close();
});

describe('sas audit list', () => {
  it('prints a table of the newest events: time, action, actor, target, ip', async () => {
    const listed = await runCli(
      ['audit', 'list', '--action', 'api_key.created', '--limit', '3'],
      env,
    );
    expect(listed, listed.stderr).toMatchObject({ code: 0, stderr: '' });
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+ACTION\s+ACTOR\s+TARGET\s+IP$/);
    expect(lines).toHaveLength(4);
    lines.slice(1).forEach((line, i) => {
      const [time, action, actor, target, ip] = line.split(/\s+/);
      expect(Number.isNaN(Date.parse(time!))).toBe(false);
      expect(action).toBe('api_key.created');
      expect(actor).toBe(`client:${org.clientId}`);
      expect(target).toBe(`api_key:${keyIds.at(-1 - i)}`);
      expect(ip).toMatch(/^[\d.:a-f]+$/);
    });
    expect(listed.stdout).not.toContain('\u001b[');

    // Without --limit, 20 rows.
    const defaults = await runCli(['audit', 'list', '--action', 'api_key.created'], env);
    expect(defaults.stdout.trim().split('\n')).toHaveLength(21);
    const none = await runCli(['audit', 'list', '--since', '2999-01-01'], env);
    expect(none).toMatchObject({ code: 0, stdout: '(none)\n' });
  });

  it('--json prints the events as one array, filters applied', async () => {
    const json = await runCli(['audit', 'list', '--target', keyIds[4]!, '--json'], env);
    expect(json.code).toBe(0);
    const events = JSON.parse(json.stdout);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      id: expect.stringMatching(/^audit_/),
      action: 'api_key.created',
      actor: { type: 'client', id: org.clientId },
      target: { type: 'api_key', id: keyIds[4] },
      mode: 'live',
    });
    const since = await runCli(
      [
        'audit',
        'list',
        '--actor',
        org.clientId,
        '--since',
        events[0].created_at,
        '--json',
        '--limit',
        '100',
      ],
      env,
    );
    expect(JSON.parse(since.stdout).map((event: any) => event.target.id)).toEqual(
      keyIds.slice(4).reverse(),
    );
    const until = await runCli(
      [
        'audit',
        'list',
        '--action',
        'api_key.created',
        '--since',
        firstAt,
        '--until',
        events[0].created_at,
        '--json',
      ],
      env,
    );
    expect(JSON.parse(until.stdout).map((event: any) => event.target.id)).toEqual(
      keyIds.slice(0, 4).reverse(),
    );
  });

  it('--ndjson streams every matching event, one object a line; --limit stops it', async () => {
    const streamed = await runCli(
      ['audit', 'list', '--action', 'api_key.created', '--since', firstAt, '--ndjson'],
      env,
    );
    expect(streamed, streamed.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(streamed.stdout.endsWith('\n')).toBe(true);
    const events = streamed.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    // All 25 (not the CLI's own keys, made before), past the table's default of 20, newest first.
    expect(events.map((event) => event.target.id)).toEqual([...keyIds].reverse());
    expect(events[0]).toMatchObject({ action: 'api_key.created', actor: { id: org.clientId } });

    const two = await runCli(['audit', 'list', '--ndjson', '--limit', '2'], env);
    expect(two.code).toBe(0);
    expect(
      two.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).target.id),
    ).toEqual([keyIds[24], keyIds[23]]);
  });

  it('exits 1 with the code and request id when refused, 2 on a wrong command line', async () => {
    const narrow = cliEnv(tempHome().home, {
      SAS_API_URL: stack.baseUrl,
      SAS_API_KEY: narrowKey,
    });
    for (const args of [
      ['audit', 'list'],
      ['audit', 'list', '--ndjson'],
    ]) {
      const refused = await runCli(args, narrow);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(/code:\s+\w+ \(HTTP 403\)/);
      expect(refused.stderr).toMatch(/request id: req_\w+/);
      expect(refused.stdout).toBe('');
    }
    const invalid = await runCli(['audit', 'list', '--action', 'DROP TABLE', '--ndjson'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('(HTTP 400)');

    for (const args of [
      ['audit', 'list', '--since', 'yesterday'],
      ['audit', 'list', '--until', '2025-13-45'],
      ['audit', 'list', '--limit', 'many'],
      ['audit', 'list', '--json', '--ndjson'],
      ['audit', 'list', '--no-such-option'],
    ]) {
      const wrong = await runCli(args, env);
      expect(wrong.code, args.join(' ')).toBe(2);
    }
  });

  it('is in the completion scripts', async () => {
    const bash = await runCli(['completion', 'bash'], env);
    expect(bash.stdout).toMatch(/"audit"\) words_="list /);
    expect(bash.stdout).toContain('"audit list") words_="--action --actor --target --since');
    const fish = await runCli(['completion', 'fish'], env);
    expect(fish.stdout).toContain("complete -c sas -n '__fish_seen_subcommand_from audit' -a list");
  });
});
