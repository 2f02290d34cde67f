import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, parsePublicId, toPublicId } from '#common';
import { OAuthClientsService } from '#auth';
import { SsoConnectionsService, SsoSignInService } from '#sso';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { authorizationRequest, authorizeAs, discover } from './support/authorization.js';
import { Contract } from './support/contract.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import {
  concretePath,
  writeOperations as allWriteOperations,
  type WriteOperation,
} from './support/write-operations.js';

/**
 * The mode matrix (issue 37): every write operation of the served OpenAPI
 * document — which test/operations proves covers every route — is called
 * with a test-mode credential of an organisation that also has live data.
 * An operation marked `x-live-only` must answer 403; any other may do what
 * it likes with test data, but the organisation's live data (every row of a
 * table with a `mode` other than test, and every row of the tables that
 * belong to both modes: people, sign-in connections, the organisation) must
 * read the same before and after. A new route is in the matrix the day it
 * is served; a new table must say here which of its rows are live.
 */

/**
 * Tables without a `mode` column: the rows that are live data (a SQL
 * condition on `t`), or null for the service's own state that belongs to no
 * tenant's data. A table missing here fails the test.
 */
const MODELESS_TABLES: Record<string, string | null> = {
  organizations: 'true',
  users: 'true',
  sso_email_domains: 'true',
  // SCIM tokens, groups and memberships belong to both modes, like the people they provision.
  scim_tokens: 'true',
  scim_groups: 'true',
  scim_group_members: 'true',
  assignment_sketches: `EXISTS (SELECT 1 FROM assignments a WHERE a.id = t.assignment_id AND a.mode <> 'test')`,
  judged_trials: `EXISTS (SELECT 1 FROM judging_tasks j WHERE j.id = t.judging_task_id AND j.mode <> 'test')`,
  target_photos: `EXISTS (SELECT 1 FROM targets x WHERE x.id = t.target_id AND x.mode <> 'test')`,
  webhook_attempts: `EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = t.delivery_id AND d.mode <> 'test')`,
  // The authorization server's sessions, grants and codes: each token carries its client's mode.
  oidc_payloads: null,
  schema_migrations: null,
  server_secrets: null,
  signing_keys: null,
};

/** Path prefixes of what exists once for both modes: every write under them is live-only. */
const BOTH_MODES_PATHS = ['/v2/analysts', '/v2/enterprise/organizations', '/v2/system'];

let stack: Stack;
let client: TestClient;
let contract: Contract;
let owner: TestOrganization;
let testToken: string;
let fingerprintSql: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStack({ worker: false, env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  contract = await Contract.load(stack.baseUrl);
  client = new TestClient(stack.baseUrl, contract);
  owner = await createOrganization(stack, client, 'live');
  const liveToken = await owner.token();
  const { client: testClient, clientSecret } = await stack.api
    .get(OAuthClientsService)
    .createConfidential({
      organizationId: owner.organizationId,
      mode: 'test',
      clientName: 'sandbox client',
      scopes: [...ALL_SCOPES],
    });
  const issued = await client.post('/oauth2/token', {
    form: {
      grant_type: 'client_credentials',
      client_id: testClient.clientId,
      client_secret: clientSecret,
      scope: ALL_SCOPES.join(' '),
    },
  });
  testToken = issued.body.access_token;

  // What the organisation has in live mode, for the test-mode calls to aim at.
  ids.organization_id = toPublicId('organization', owner.organizationId);
  ids.analyst_id = (await addMember(stack, owner, ['admin', 'analyst'], 'Live admin')).analystId;
  const connection = await client.post(
    `/v2/enterprise/organizations/${ids.organization_id}/sso-connections`,
    {
      token: liveToken,
      json: {
        type: 'ldap',
        name: 'Live directory',
        email_domains: ['live-directory.example.com'],
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
  for (const [path, json] of [
    ['/v1/sessions', { type: 'remote_viewing', target: 'live work' }],
    ['/v2/targets', { description: 'live target', descriptors: ['water'] }],
  ] as const) {
    expect((await client.post(path, { token: liveToken, json })).status).toBe(201);
  }

  // The test mode's own resources, so that routes taking an id reach something.
  const created = async (path: string, json: unknown, idField: string) => {
    const response = await client.post(path, { token: testToken, json });
    expect(response.status, `${path}: ${response.text}`).toBeLessThan(300);
    return response.body[idField] as string;
  };
  const sandbox: [param: string, path: string, body: unknown, idField: string][] = [
    ['key_id', '/v1/api-keys', { name: 'sandbox', scopes: ['remote-viewing:read'] }, 'id'],
    [
      'client_id',
      '/v1/oauth-clients',
      { client_name: 'sandbox', grant_types: ['client_credentials'], scope: 'remote-viewing:read' },
      'client_id',
    ],
    ['session_id', '/v1/sessions', { type: 'remote_viewing', target: 'sandbox' }, 'session_id'],
    [
      'analysis_id',
      '/v1/analysis/submit',
      { target_type: 'object', analysis_type: 'quick_scan', description: 'sandbox' },
      'analysis_id',
    ],
    ['query_id', '/v1/dowsing/query', { query_type: 'yes_no', question: 'sandbox?' }, 'query_id'],
    ['target_id', '/v2/targets', { description: 'sandbox', descriptors: ['sand'] }, 'target_id'],
    ['report_id', '/v2/reports/generate', { report_type: 'history', format: 'json' }, 'report_id'],
    [
      'webhook_id',
      '/v2/webhooks',
      { ...(exampleOf('post', '/v2/webhooks') as object), url: 'https://127.0.0.1:9/hooks' },
      'webhook_id',
    ],
    [
      'template_id',
      '/v2/sessions/templates',
      exampleOf('post', '/v2/sessions/templates'),
      'template_id',
    ],
  ];
  for (const [param, path, body, idField] of sandbox) {
    ids[param] = await created(path, body, idField);
  }

  fingerprintSql = await liveDataFingerprintSql(stack.api.get(Sql));
});
afterAll(() => stack?.close());

/** A query of one md5 per table over its live rows; fails the test on an unclassified table. */
async function liveDataFingerprintSql(sql: Sql): Promise<string> {
  const tables = await sql.rows<{ table_name: string; has_mode: boolean }>(
    `SELECT t.table_name,
            EXISTS (SELECT 1 FROM information_schema.columns c
                     WHERE c.table_schema = 'public' AND c.table_name = t.table_name
                       AND c.column_name = 'mode') AS has_mode
       FROM information_schema.tables t
      WHERE t.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      ORDER BY 1`,
    [],
  );
  const unclassified = tables
    .filter((t) => !t.has_mode && !(t.table_name in MODELESS_TABLES))
    .map((t) => t.table_name);
  expect(unclassified, 'tables without a mode column must say which rows are live').toEqual([]);
  return tables
    .map(({ table_name: table, has_mode: hasMode }) => {
      const live = hasMode ? `t.mode <> 'test'` : MODELESS_TABLES[table];
      if (live === null) return null;
      return `SELECT '${table}' AS name, md5(coalesce(string_agg(md5(t::text), ',' ORDER BY md5(t::text)), '')) AS hash
                FROM ${table} t WHERE ${live}`;
    })
    .filter((part) => part !== null)
    .join('\nUNION ALL\n');
}

async function liveData(): Promise<Record<string, string>> {
  const rows = await stack.api.get(Sql).rows<{ name: string; hash: string }>(fingerprintSql, []);
  return Object.fromEntries(rows.map((row) => [row.name, row.hash]));
}

function writeOperations(): WriteOperation[] {
  return allWriteOperations(contract.document);
}

function exampleOf(method: string, path: string): unknown {
  const found = writeOperations().find((op) => op.method === method && op.path === path);
  if (!found) throw new Error(`no operation ${method} ${path}`);
  return found.example;
}

describe('the mode matrix', () => {
  it('marks every write to what both modes share (people, sign-in, the organisation) live-only', () => {
    const operations = writeOperations();
    expect(operations.length).toBeGreaterThan(60);
    const shared = operations.filter((op) => BOTH_MODES_PATHS.some((p) => op.path.startsWith(p)));
    expect(shared.length).toBeGreaterThanOrEqual(10);
    expect(shared.filter((op) => !op.liveOnly).map((op) => `${op.method} ${op.path}`)).toEqual([]);
  });

  it('answers 403 to a test-mode credential on every live-only write, and leaves live data alone on every other', async () => {
    const escapes: string[] = [];
    for (const operation of writeOperations()) {
      const name = `${operation.method} ${operation.path}`;
      const before = await liveData();
      const response = await client.request(
        operation.method.toUpperCase(),
        concretePath(operation, ids),
        {
          token: testToken,
          ...(operation.method === 'delete' ? {} : { json: operation.example }),
        },
      );
      if (operation.liveOnly) {
        expect(response.status, `${name}: ${response.text}`).toBe(403);
        expect(response.body.error.message, name).toMatch(/live-mode credential/);
      } else {
        expect(response.status, `${name}: ${response.text}`).toBeLessThan(500);
      }
      const after = await liveData();
      const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
      if (changed.length > 0)
        escapes.push(`${name} (${response.status}) changed ${changed.join(', ')}`);
    }
    expect(escapes).toEqual([]);
  });

  it('notices a write that reaches live data (the check above can fail)', async () => {
    const before = await liveData();
    await stack.api
      .get(Sql)
      .rows(`UPDATE organizations SET name = name || ' (changed)' WHERE id = $1`, [
        owner.organizationId,
      ]);
    const after = await liveData();
    expect(Object.keys(after).filter((table) => after[table] !== before[table])).toEqual([
      'organizations',
    ]);
  });
});

describe('sign-in keeps to the connection’s mode', () => {
  /** A connection made in test mode before the API refused it, as old data may hold. */
  async function sandboxConnection(domain: string): Promise<string> {
    const connection = await stack.api.get(SsoConnectionsService).create(
      {
        organizationId: owner.organizationId,
        mode: 'test',
        credential: 'api_key',
        subject: 'old sandbox key',
        scopes: [...ALL_SCOPES],
      },
      {
        type: 'ldap',
        name: 'Old sandbox directory',
        emailDomains: [domain],
        ldap: {
          url: 'ldaps://127.0.0.1:1',
          bindDn: 'cn=service,dc=example,dc=com',
          bindPassword: 'service secret',
          userBaseDn: 'ou=people,dc=example,dc=com',
          userFilter: '(mail={username})',
        },
      },
    );
    return connection.id;
  }

  it('routes no sign-in through a test-mode connection', async () => {
    await sandboxConnection('sandbox-routing.example.com');
    const sso = stack.api.get(SsoSignInService);
    expect(await sso.connectionForEmail('someone@sandbox-routing.example.com')).toBeNull();
  });

  it('gives a person of a test-mode connection no live token, and one of a live connection one', async () => {
    const codeClient = await memberClient(client, owner);
    const sql = stack.api.get(Sql);
    const federated = async (connectionId: string) => {
      const person = await addMember(stack, owner, ['admin']);
      await sql.rows(
        `UPDATE users SET identity_source = 'ldap', sso_connection_id = $2,
            scopes = ARRAY['remote-viewing:read'] WHERE id = $1`,
        [person.userId, connectionId],
      );
      return person;
    };
    const sandboxPerson = await federated(await sandboxConnection('sandbox-tokens.example.com'));
    const as = await discover(stack.baseUrl);
    const request = await authorizationRequest(as, codeClient);
    const callback = await authorizeAs(stack.baseUrl, request.url, sandboxPerson);
    expect(callback.searchParams.get('error')).toBe('invalid_grant');
    const livePerson = await federated(parsePublicId('ssoConnection', ids.connection_id)!);
    expect(await memberToken(stack, codeClient, livePerson)).toMatch(/^ey/);
  });
});
