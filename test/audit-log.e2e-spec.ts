import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { Contract } from './support/contract.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken } from './support/people.js';
import { operatorToken } from './support/authorization.js';
import { startDnsServer, type TestDnsServer } from './support/dns-server.js';
import { BOOTSTRAP_CLIENT_ID, startStack, type Stack } from './support/stack.js';
import { concretePath, writeOperations, type WriteOperation } from './support/write-operations.js';

/**
 * The audit log (issue 41): what records it, generated from the served
 * OpenAPI document; reading it (filters, pages, NDJSON, who may); and that
 * nothing changes or deletes a record but the retention sweep.
 */

/** Where every write is security-relevant: each must record what it did. */
const SECURITY_PATHS = [
  '/v1/api-keys',
  '/v1/oauth-clients',
  '/v1/webhooks',
  '/v2/webhooks',
  '/v2/enterprise/organizations',
  '/v2/analysts',
];

/** Writes under SECURITY_PATHS that change nothing of security, and why. */
const NOT_AUDITED: Record<string, string> = {
  'post /v1/webhooks/{webhook_id}/test': 'sends a sample event; changes nothing',
  'post /v2/webhooks/{webhook_id}/test': 'sends a sample event; changes nothing',
  'post /v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry':
    'schedules a delivery again; changes nothing',
  'post /v2/webhooks/{webhook_id}/deliveries/{delivery_id}/retry':
    'schedules a delivery again; changes nothing',
  'post /v2/enterprise/organizations/{organization_id}/sso-connections/{connection_id}/test':
    'tries the connection; changes nothing',
};

/** Deletions of work: each must record who deleted what (the work itself is gone). */
const WORK_DELETIONS = /^\/v[12]\/(sessions|analysis|dowsing\/queries)\/\{\w+\}$/;

let stack: Stack;
let client: TestClient;
let contract: Contract;
let owner: TestOrganization;
let token: string;
let operator: string;
let dns: TestDnsServer;
const ids: Record<string, string> = {};

/** What an operation needs beyond the shared resources: a fresh one, another caller, a body fix. */
interface Preparation {
  ids?: Record<string, string>;
  token?: string;
  body?: (example: any) => unknown;
}

/** Operations that change the state others rely on, or need a state of their own. */
const PREPARATIONS: Record<string, () => Promise<Preparation>> = {
  // Rotating or revoking makes a key unusable for the next: each gets its own.
  'post /v1/api-keys/{key_id}/rotate': async () => ({ ids: { key_id: await newKey() } }),
  'post /v1/api-keys/{key_id}/revoke': async () => ({ ids: { key_id: await newKey() } }),
  // Version 1 routes reach the endpoints made through version 1.
  'put /v1/webhooks/{webhook_id}': v1Webhook,
  'patch /v1/webhooks/{webhook_id}': v1Webhook,
  'post /v1/webhooks/{webhook_id}/rotate-secret': v1Webhook,
  'delete /v1/webhooks/{webhook_id}': v1Webhook,
  // Organisations are created and changed by the operator.
  'post /v2/enterprise/organizations': async () => ({ token: operator }),
  'patch /v2/enterprise/organizations/{organization_id}': async () => ({ token: operator }),
  // Only someone who has not yet accepted is invited again.
  'post /v2/analysts/{analyst_id}/invitation': async () => {
    const invited = await client.post('/v2/analysts', {
      token,
      json: { email: `invited.${Date.now()}@example.com`, name: 'Invited', roles: ['analyst'] },
    });
    expect(invited.status, invited.text).toBe(201);
    return { ids: { analyst_id: invited.body.analyst_id } };
  },
};

/**
 * The example with its destination (a webhook's or a directory's `url`) on
 * this machine: the documented hosts are examples, this machine's is allowed
 * (OUTBOUND_PRIVATE_ALLOWLIST) and never contacted.
 */
function onThisMachine(example: any): unknown {
  if (typeof example?.url !== 'string') return example;
  return { ...example, url: example.url.replace(/^(\w+:\/\/)[^/:]+(:\d+)?/, '$1127.0.0.1:9') };
}

async function v1Webhook(): Promise<Preparation> {
  const response = await client.post('/v1/webhooks', {
    token,
    json: { url: 'https://127.0.0.1:9/v1-hooks', events: ['session.completed'] },
  });
  expect(response.status, response.text).toBe(201);
  return { ids: { webhook_id: response.body.webhook_id } };
}

async function newKey(): Promise<string> {
  const response = await client.post('/v1/api-keys', {
    token,
    json: { name: 'walked', scopes: ['remote-viewing:read'] },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

beforeAll(async () => {
  dns = await startDnsServer();
  stack = await startStack({
    worker: false,
    env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1', DNS_RESOLVERS: dns.address },
  });
  contract = await Contract.load(stack.baseUrl);
  client = new TestClient(stack.baseUrl, contract);
  owner = await createOrganization(stack, client, 'live');
  token = await owner.token();
  operator = await operatorToken(client);
  ids.organization_id = toPublicId('organization', owner.organizationId);
  ids.analyst_id = (await addMember(stack, owner, ['analyst'], 'Audited analyst')).analystId;
  const created = async (path: string, json: unknown, idField: string) => {
    const response = await client.post(path, { token, json });
    expect(response.status, `${path}: ${response.text}`).toBeLessThan(300);
    return response.body[idField] as string;
  };
  ids.key_id = await created(
    '/v1/api-keys',
    { name: 'audited', scopes: ['remote-viewing:read'] },
    'id',
  );
  ids.client_id = await created(
    '/v1/oauth-clients',
    { client_name: 'audited', grant_types: ['client_credentials'], scope: 'remote-viewing:read' },
    'client_id',
  );
  ids.webhook_id = await created(
    '/v2/webhooks',
    { url: 'https://127.0.0.1:9/hooks', events: ['session.completed'] },
    'webhook_id',
  );
  const connection = await client.post(
    `/v2/enterprise/organizations/${ids.organization_id}/sso-connections`,
    {
      token,
      json: {
        type: 'ldap',
        name: 'Audited directory',
        email_domains: [`audited-${Date.now()}.example.com`],
        url: 'ldaps://127.0.0.1:1',
        bind_dn: 'cn=service,dc=example,dc=com',
        bind_password: 'service secret',
        user_base_dn: 'ou=people,dc=example,dc=com',
        user_filter: '(mail={username})',
        default_scopes: ['remote-viewing:read'],
      },
    },
  );
  expect(connection.status, connection.text).toBe(201);
  ids.connection_id = connection.body.id;
  // Its domain's record is published, so that verify-domains verifies (and records) something.
  for (const { verification } of connection.body.domains) {
    dns.publishTxt(verification.name, verification.value);
  }
  ids.scim_token_id = await created(
    `/v2/enterprise/organizations/${ids.organization_id}/scim-tokens`,
    { name: 'audited' },
    'id',
  );
  ids.session_id = await created(
    '/v1/sessions',
    { type: 'remote_viewing', target: 'audited' },
    'session_id',
  );
  ids.analysis_id = await created(
    '/v1/analysis/submit',
    { target_type: 'object', analysis_type: 'quick_scan', description: 'audited' },
    'analysis_id',
  );
  ids.query_id = await created(
    '/v1/dowsing/query',
    { query_type: 'yes_no', question: 'audited?' },
    'query_id',
  );
});
afterAll(async () => {
  await stack?.close();
  await dns?.close();
});

function named(operation: WriteOperation): string {
  return `${operation.method} ${operation.path}`;
}

async function auditOfRequest(requestId: string) {
  return stack.api
    .get(Sql)
    .rows<{ action: string; actor_type: string; actor_id: string; ip: string | null }>(
      `SELECT action, actor_type, actor_id, ip FROM audit_events WHERE request_id = $1`,
      [requestId],
    );
}

describe('what the audit log records', () => {
  it('has every write to a security-relevant path, and every deletion of work, declare its audit actions', () => {
    const operations = writeOperations(contract.document);
    const undeclared = operations
      .filter(
        (op) =>
          SECURITY_PATHS.some((prefix) => op.path.startsWith(prefix)) ||
          (op.method === 'delete' && WORK_DELETIONS.test(op.path)),
      )
      .filter((op) => op.auditActions.length === 0 && !(named(op) in NOT_AUDITED))
      .map(named);
    expect(undeclared).toEqual([]);
    // The exemptions name operations that exist and record nothing.
    for (const exempt of Object.keys(NOT_AUDITED)) {
      const operation = operations.find((op) => named(op) === exempt);
      expect(operation, exempt).toBeDefined();
      expect(operation!.auditActions, exempt).toEqual([]);
    }
  });

  it('records one of its declared actions, with the request, when an audited operation succeeds', async () => {
    const audited = writeOperations(contract.document).filter((op) => op.auditActions.length > 0);
    expect(audited.length).toBeGreaterThanOrEqual(20);
    const missing: string[] = [];
    for (const operation of audited) {
      const name = named(operation);
      const prepared = (await PREPARATIONS[name]?.()) ?? {};
      const caller = prepared.token ?? token;
      const response = await client.request(
        operation.method.toUpperCase(),
        concretePath(operation, { ...ids, ...prepared.ids }),
        {
          token: caller,
          headers: { 'user-agent': 'audit-walk/1.0' },
          ...(operation.method === 'delete'
            ? {}
            : { json: (prepared.body ?? onThisMachine)(operation.example) }),
        },
      );
      expect(response.status, `${name}: ${response.text}`).toBeLessThan(300);
      const requestId = response.headers.get('x-request-id')!;
      const events = await auditOfRequest(requestId);
      const declared = events.filter((event) => operation.auditActions.includes(event.action));
      if (declared.length === 0) {
        missing.push(`${name} → ${JSON.stringify(events.map((e) => e.action))}`);
        continue;
      }
      expect(declared[0], name).toMatchObject({
        actor_type: 'client',
        actor_id: caller === operator ? BOOTSTRAP_CLIENT_ID : owner.clientId,
      });
      expect(declared[0]!.ip, name).not.toBeNull();
    }
    expect(missing).toEqual([]);
  });
});

describe('GET /v2/audit-events', () => {
  /** An organisation of its own with a known set of events, newest last. */
  async function organisationWithEvents(count: number) {
    const org = await createOrganization(stack, client, 'live');
    const orgToken = await org.token();
    const keyIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const response = await client.post('/v1/api-keys', {
        token: orgToken,
        json: { name: `key ${i}`, scopes: ['remote-viewing:read'] },
      });
      expect(response.status, response.text).toBe(201);
      keyIds.push(response.body.id);
    }
    return { org, orgToken, keyIds };
  }

  it('lists the organisation’s events newest first, in pages a cursor continues', async () => {
    const { orgToken, keyIds } = await organisationWithEvents(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?per_page=2&action=api_key.created${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await client.get(`/v2/audit-events${query}`, { token: orgToken });
      expect(page.status, page.text).toBe(200);
      expect(page.body.pagination.total).toBe(5);
      seen.push(...page.body.data.map((e: { target: { id: string } }) => e.target.id));
      cursor = page.body.pagination.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([...keyIds].reverse());
    const [newest] = (await client.get('/v2/audit-events?per_page=1', { token: orgToken })).body
      .data;
    expect(newest).toEqual({
      id: expect.stringMatching(/^audit_/),
      action: 'api_key.created',
      actor: { type: 'client', id: expect.any(String) },
      target: { type: 'api_key', id: keyIds.at(-1) },
      mode: 'live',
      ip: expect.any(String),
      user_agent: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
      changes: expect.any(Object),
      details: null,
      created_at: expect.any(String),
    });
  });

  it('filters by action, actor, target and time', async () => {
    const { org, orgToken, keyIds } = await organisationWithEvents(2);
    const revoked = await client.post(`/v1/api-keys/${keyIds[0]}/revoke`, { token: orgToken });
    expect(revoked.status, revoked.text).toBeLessThan(300);
    const list = async (query: string) =>
      (await client.get(`/v2/audit-events?${query}`, { token: orgToken })).body.data.map(
        (e: { action: string; target: { id: string } }) => `${e.action} ${e.target.id}`,
      );
    expect(await list('action=api_key.revoked')).toEqual([`api_key.revoked ${keyIds[0]}`]);
    expect(await list(`target_id=${keyIds[0]}`)).toEqual([
      `api_key.revoked ${keyIds[0]}`,
      `api_key.created ${keyIds[0]}`,
    ]);
    const everything = (await client.get('/v2/audit-events?per_page=100', { token: orgToken })).body
      .data as { action: string; actor: { id: string }; target: { id: string } }[];
    const byClient = everything
      .filter((e) => e.actor.id === org.clientId)
      .map((e) => `${e.action} ${e.target.id}`);
    expect(byClient.length).toBeGreaterThanOrEqual(3);
    expect(await list(`actor_id=${org.clientId}`)).toEqual(byClient);
    expect(await list('actor_id=usr_01m82sfbpbenftg57hv349pfkd')).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await list(`created_after=${future}`)).toEqual([]);
    expect((await list(`created_before=${future}`)).length).toBe(everything.length);
  });

  it('streams the whole selection as NDJSON, filters applied', async () => {
    const { orgToken, keyIds } = await organisationWithEvents(3);
    const response = await client.get('/v2/audit-events?action=api_key.created&per_page=1', {
      token: orgToken,
      headers: { accept: 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = response.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((e) => e.target.id)).toEqual([...keyIds].reverse());
    const page = await client.get('/v2/audit-events?action=api_key.created', { token: orgToken });
    expect(lines).toEqual(page.body.data);
  });

  it('refuses a bad filter naming the field', async () => {
    for (const [query, field] of [
      ['action=DROP%20TABLE', 'action'],
      ['created_after=yesterday', 'created_after'],
      ['target_id=%27%3B--', 'target_id'],
      ['cursor=not*a*cursor', 'cursor'],
    ]) {
      const response = await client.get(`/v2/audit-events?${query}`, { token });
      expect(response.status, query).toBe(400);
      expect(JSON.stringify(response.body.error), query).toContain(field);
    }
  });

  it('is for admins: a credential without organizations:read, or an analyst, is refused', async () => {
    const narrow = await owner.token(['remote-viewing:read']);
    expect((await client.get('/v2/audit-events', { token: narrow })).status).toBe(403);
    const analyst = await addMember(stack, owner, ['analyst']);
    const analystToken = await memberToken(stack, await memberClient(client, owner), analyst);
    expect((await client.get('/v2/audit-events', { token: analystToken })).status).toBe(403);
  });
});

describe('an append-only table', () => {
  it('refuses UPDATE, DELETE and TRUNCATE from the application’s connection', async () => {
    const sql = stack.api.get(Sql);
    const [row] = await sql.rows<{ id: string }>(
      `SELECT id FROM audit_events WHERE organization_id = $1 LIMIT 1`,
      [owner.organizationId],
    );
    expect(row).toBeDefined();
    for (const statement of [
      `UPDATE audit_events SET action = 'nothing.happened' WHERE id = $1`,
      `DELETE FROM audit_events WHERE id = $1`,
    ]) {
      await expect(sql.rows(statement, [row!.id])).rejects.toThrow(/append-only/);
    }
    await expect(sql.rows('TRUNCATE audit_events', [])).rejects.toThrow(/append-only/);
    // Setting the sweep's own flag by hand does not open UPDATE.
    await expect(
      sql.transaction(async (tx) => {
        await tx.query(`SELECT set_config('sas.audit_sweep', 'on', true)`);
        await tx.query(`UPDATE audit_events SET action = 'x.y' WHERE id = $1`, [row!.id]);
      }),
    ).rejects.toThrow(/append-only/);
  });

  it('lets the role docs/audit-log.md grants insert and read, never change, and sweep only what expired', async () => {
    const sql = stack.api.get(Sql);
    const role = 'sas_audit_test_app';
    await sql.rows(
      `DO $$ BEGIN
         IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
           CREATE ROLE ${role} NOLOGIN;
         END IF;
       END $$`,
      [],
    );
    // As docs/audit-log.md tells production to grant.
    await sql.rows(`GRANT SELECT, INSERT, UPDATE, DELETE ON audit_events TO ${role}`, []);
    await sql.rows(`REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM ${role}`, []);
    await sql.rows(`GRANT EXECUTE ON FUNCTION sweep_audit_events(integer, integer) TO ${role}`, []);
    const org = await createOrganization(stack, client, 'live');
    const inserted = async (days: number) => {
      const [{ id }] = await sql.rows<{ id: string }>(
        `INSERT INTO audit_events (id, organization_id, mode, action, actor_type, actor_id,
           target_type, target_id, created_at)
         VALUES (gen_random_uuid(), $1, 'live', 'api_key.created', 'system', 'test', 'api_key',
                 'key_x', now() - make_interval(days => $2)) RETURNING id`,
        [org.organizationId, days],
      );
      return id;
    };
    const expired = await inserted(400);
    const kept = await inserted(300);
    const asRole = <T>(statement: string, parameters: unknown[]) =>
      sql.transaction(async (tx) => {
        await tx.query(`SET LOCAL ROLE ${role}`);
        return tx.rows<T>(statement, parameters);
      });
    await expect(
      asRole(`UPDATE audit_events SET action = 'x.y' WHERE id = $1`, [kept]),
    ).rejects.toThrow(/permission denied/);
    await expect(asRole(`DELETE FROM audit_events WHERE id = $1`, [kept])).rejects.toThrow(
      /permission denied/,
    );
    await expect(asRole(`SELECT sweep_audit_events(0, 10)`, [])).rejects.toThrow(/at least a day/);
    await asRole(`SELECT sweep_audit_events(365, 100000)`, []);
    const left = await sql.rows<{ id: string }>(
      `SELECT id FROM audit_events WHERE organization_id = $1 ORDER BY created_at`,
      [org.organizationId],
    );
    expect(left.map((r) => r.id)).toContain(kept);
    expect(left.map((r) => r.id)).not.toContain(expired);
  });
});
