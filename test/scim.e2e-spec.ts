import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId, toPublicId } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * SCIM 2.0 provisioning (issue 41): the request sequences Okta and Entra ID
 * send (test/fixtures/scim), the effects on people — matched by email,
 * disabled at once, groups mapped to scopes by the SSO connection — and the
 * boundaries: the token's own organisation only, SCIM's own errors.
 */

interface Step {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  expect: { status: number; body?: object };
  save?: Record<string, string>;
}

const SCIM_TYPE = 'application/scim+json';

let stack: Stack;
let client: TestClient;
let owner: TestOrganization;
let adminToken: string;
let scimToken: string;

async function newScimToken(organization: TestOrganization, token: string): Promise<string> {
  const created = await client.post(
    `/v2/enterprise/organizations/${toPublicId('organization', organization.organizationId)}/scim-tokens`,
    { token, json: { name: 'Identity provider' } },
  );
  expect(created.status, created.text).toBe(201);
  return created.body.token;
}

/** A SCIM request as an identity provider sends it. */
async function scim(method: string, path: string, body?: unknown, bearer = scimToken) {
  const response = await fetch(`${stack.baseUrl}/scim/v2${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      accept: SCIM_TYPE,
      ...(body === undefined ? {} : { 'content-type': SCIM_TYPE }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    location: response.headers.get('location'),
    body: text === '' ? undefined : JSON.parse(text),
  };
}

function substituted<T>(value: T, values: Record<string, string>): T {
  return JSON.parse(
    JSON.stringify(value).replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole),
  ) as T;
}

beforeAll(async () => {
  // The SSO connection's directory is on this machine (never contacted: it only needs to be allowed).
  stack = await startStack({ worker: false, env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  client = await TestClient.for(stack);
  owner = await createOrganization(stack, client, 'live');
  adminToken = await owner.token();
  scimToken = await newScimToken(owner, adminToken);
});
afterAll(() => stack?.close());

describe('the request sequences identity providers send', () => {
  for (const provider of ['okta', 'entra']) {
    it(`answers ${provider}'s provisioning sequence as SCIM says`, async () => {
      const fixture = JSON.parse(
        readFileSync(new URL(`./fixtures/scim/${provider}.json`, import.meta.url), 'utf8'),
      ) as { steps: Step[] };
      const values: Record<string, string> = { run: randomBytes(4).toString('hex') };
      for (const raw of fixture.steps) {
        const step = substituted(raw, values);
        const response = await scim(step.method, step.path, step.body);
        const where = `${provider}: ${step.name}: ${JSON.stringify(response.body)}`;
        expect(response.status, where).toBe(step.expect.status);
        if (response.body !== undefined) expect(response.type, where).toContain(SCIM_TYPE);
        if (step.expect.body !== undefined)
          expect(response.body, where).toMatchObject(step.expect.body);
        if (step.expect.status === 201) {
          expect(response.location, where).toBe(
            `${stack.settings.publicUrl}/scim/v2${step.path}/${response.body.id}`,
          );
        }
        for (const [name, field] of Object.entries(step.save ?? {}))
          values[name] = response.body[field];
      }
    });
  }
});

describe('discovery', () => {
  it('describes itself: patch and filter supported, Users and Groups, their schemas', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
    });
    const types = await scim('GET', '/ResourceTypes');
    expect(types.body.Resources.map((type: { name: string }) => type.name).sort()).toEqual([
      'Group',
      'User',
    ]);
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.body.Resources.map((schema: { id: string }) => schema.id)).toEqual(
      expect.arrayContaining([
        'urn:ietf:params:scim:schemas:core:2.0:User',
        'urn:ietf:params:scim:schemas:core:2.0:Group',
      ]),
    );
  });
});

describe('who may call it', () => {
  it('refuses a missing, unknown or revoked token, and an API credential, in SCIM’s error form', async () => {
    const other = await newScimToken(owner, adminToken);
    const tokens = await client.get(
      `/v2/enterprise/organizations/${toPublicId('organization', owner.organizationId)}/scim-tokens`,
      { token: adminToken },
    );
    const otherId = tokens.body.data.find(
      (t: { last_used_at: string | null }) => t.last_used_at === null,
    )?.id;
    expect(otherId).toBeDefined();
    const revoked = await client.delete(
      `/v2/enterprise/organizations/${toPublicId('organization', owner.organizationId)}/scim-tokens/${otherId}`,
      { token: adminToken },
    );
    expect(revoked.status).toBe(204);
    for (const bearer of ['', 'sas_scim_nothing', other, adminToken]) {
      const response = await scim('GET', '/Users', undefined, bearer);
      expect(response.status, bearer).toBe(401);
      expect(response.type).toContain(SCIM_TYPE);
      expect(response.body).toMatchObject({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        status: '401',
      });
    }
    // Its requests count against its organisation's limits, as the organisation's API calls do.
    const api = await client.get('/v2/analysts', { token: adminToken });
    const counted = await fetch(`${stack.baseUrl}/scim/v2/Users`, {
      headers: { authorization: `Bearer ${scimToken}` },
    });
    expect(counted.headers.get('x-ratelimit-limit')).toBe(api.headers.get('x-ratelimit-limit'));
    expect(Number(counted.headers.get('x-ratelimit-remaining'))).toBeLessThan(
      Number(api.headers.get('x-ratelimit-remaining')),
    );
    // A SCIM token reaches nothing of the API.
    expect((await client.get('/v2/analysts', { token: scimToken })).status).toBe(401);
  });

  it('shows and changes only its own organisation’s people and groups', async () => {
    const stranger = await createOrganization(stack, client, 'live');
    const strangerScim = await newScimToken(stranger, await stranger.token());
    const created = await scim(
      'POST',
      '/Users',
      {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: `own.${randomBytes(3).toString('hex')}@example.com`,
      },
      strangerScim,
    );
    expect(created.status).toBe(201);
    const group = await scim(
      'POST',
      '/Groups',
      { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Strangers' },
      strangerScim,
    );
    for (const path of [`/Users/${created.body.id}`, `/Groups/${group.body.id}`]) {
      expect((await scim('GET', path)).status, path).toBe(404);
      expect((await scim('DELETE', path)).status, path).toBe(404);
      expect(
        (
          await scim('PATCH', path, {
            schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
            Operations: [{ op: 'replace', path: 'displayName', value: 'x' }],
          })
        ).status,
        path,
      ).toBe(404);
    }
    const mine = await scim('GET', '/Users?count=200');
    expect(JSON.stringify(mine.body)).not.toContain(created.body.id);
    // A group of ours cannot take their person in.
    const ours = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: `Ours ${randomBytes(3).toString('hex')}`,
      members: [{ value: created.body.id }],
    });
    expect(ours.status).toBe(400);
    expect(ours.body.scimType).toBe('invalidValue');
    // Nor can we create a person with their email.
    const taken = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: created.body.userName,
    });
    expect(taken.status).toBe(409);
    expect(taken.body.scimType).toBe('uniqueness');
  });
});

describe('what provisioning does to people', () => {
  it('takes an existing person under SCIM by email, and disabling them ends their access at once', async () => {
    const person = await addMember(stack, owner, ['admin']);
    const codeClient = await memberClient(client, owner);
    const personToken = await memberToken(stack, codeClient, person);
    expect((await client.get('/v1/user/profile', { token: personToken })).status).toBe(200);

    const linked = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: person.email.toUpperCase(),
      name: { givenName: 'Linked', familyName: 'Person' },
      active: true,
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    expect(linked.body.id).toBe(toPublicId('user', person.userId));
    // The people API says SCIM now manages them.
    const listed = await client.get(`/v2/analysts/${person.analystId}`, { token: adminToken });
    expect(listed.body).toMatchObject({ scim_managed: true });

    const disabled = await scim('PATCH', `/Users/${linked.body.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body.active).toBe(false);
    // The token they hold is refused on its next use; the authorization server holds nothing of theirs.
    expect((await client.get('/v1/user/profile', { token: personToken })).status).toBe(401);
    const held = await stack.api
      .get(Sql)
      .rows(`SELECT kind FROM oidc_payloads WHERE payload->>'accountId' = $1`, [linked.body.id]);
    expect(held).toEqual([]);

    const audit = await stack.api
      .get(Sql)
      .rows<{ action: string; actor_type: string }>(
        `SELECT action, actor_type FROM audit_events WHERE target_id = $1 ORDER BY created_at`,
        [linked.body.id],
      );
    expect(audit.map((event) => `${event.action} ${event.actor_type}`)).toEqual(
      expect.arrayContaining(['person.updated scim_token', 'person.disabled scim_token']),
    );
  });

  it('maps a person’s SCIM groups to scopes through the SSO connection, as SAML and LDAP groups are', async () => {
    const domain = `scim-${randomBytes(3).toString('hex')}.example.com`;
    const connection = await client.post(
      `/v2/enterprise/organizations/${toPublicId('organization', owner.organizationId)}/sso-connections`,
      {
        token: adminToken,
        json: {
          type: 'ldap',
          name: 'Mapped directory',
          email_domains: [domain],
          url: 'ldaps://127.0.0.1:1',
          bind_dn: 'cn=service,dc=example,dc=com',
          bind_password: 'service secret',
          user_base_dn: 'ou=people,dc=example,dc=com',
          user_filter: '(mail={username})',
          default_scopes: ['remote-viewing:read'],
          group_scopes: { Dowsers: ['dowsing:read', 'dowsing:write'] },
        },
      },
    );
    expect(connection.status, connection.text).toBe(201);
    const sql = stack.api.get(Sql);
    // Proving a domain takes DNS: the test marks it proved, as the verifier would.
    await sql.rows(`UPDATE sso_email_domains SET status = 'verified' WHERE connection_id = $1`, [
      parsePublicId('ssoConnection', connection.body.id),
    ]);
    const user = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: `mapped@${domain}`,
    });
    expect(user.status).toBe(201);
    const scopesOf = async () =>
      (
        await sql.rows<{ groups: string[]; scopes: string[] }>(
          'SELECT groups, scopes FROM users WHERE id = $1',
          [parsePublicId('user', user.body.id)],
        )
      )[0]!;
    expect(await scopesOf()).toEqual({ groups: [], scopes: ['remote-viewing:read'] });
    const group = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Dowsers',
      members: [{ value: user.body.id }],
    });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    expect(await scopesOf()).toEqual({
      groups: ['Dowsers'],
      scopes: ['dowsing:read', 'dowsing:write', 'remote-viewing:read'],
    });
    expect((await scim('DELETE', `/Groups/${group.body.id}`)).status).toBe(204);
    expect(await scopesOf()).toEqual({ groups: [], scopes: ['remote-viewing:read'] });
  });
});

describe('concurrent changes', () => {
  it('keeps both of two PATCHes of one person made at once', async () => {
    const user = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: `racing.${randomBytes(3).toString('hex')}@example.com`,
    });
    const patch = (operation: object) =>
      scim('PATCH', `/Users/${user.body.id}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [operation],
      });
    const results = await Promise.all([
      patch({ op: 'replace', path: 'name.formatted', value: 'Renamed Racer' }),
      patch({ op: 'add', path: 'externalId', value: 'racer-1' }),
    ]);
    expect(results.map((result) => result.status)).toEqual([200, 200]);
    const after = await scim('GET', `/Users/${user.body.id}`);
    expect(after.body).toMatchObject({
      name: { formatted: 'Renamed Racer' },
      externalId: 'racer-1',
    });
  });

  it('keeps both members two PATCHes add to one group at once', async () => {
    const people = await Promise.all(
      ['a', 'b'].map((letter) =>
        scim('POST', '/Users', {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          userName: `member.${letter}.${randomBytes(3).toString('hex')}@example.com`,
        }),
      ),
    );
    const group = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: `Racing ${randomBytes(3).toString('hex')}`,
    });
    await Promise.all(
      people.map((person) =>
        scim('PATCH', `/Groups/${group.body.id}`, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'add', path: 'members', value: [{ value: person.body.id }] }],
        }),
      ),
    );
    const after = await scim('GET', `/Groups/${group.body.id}`);
    expect(after.body.members.map((member: { value: string }) => member.value).sort()).toEqual(
      people.map((person) => person.body.id).sort(),
    );
  });
});

describe('bad input', () => {
  it('answers a malformed body, a userName that is no email and a bad count in SCIM’s error form', async () => {
    const malformed = await fetch(`${stack.baseUrl}/scim/v2/Users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${scimToken}`, 'content-type': SCIM_TYPE },
      body: '{"userName": ',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
    const notEmail = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'not an email',
    });
    expect(notEmail.status).toBe(400);
    expect(notEmail.body).toMatchObject({ scimType: 'invalidValue' });
    expect(notEmail.body.detail).toContain('userName');
    const count = await scim('GET', '/Users?count=many');
    expect(count.status).toBe(400);
    expect(count.body.detail).toContain('count');
    expect((await scim('GET', '/Nothing')).status).toBe(404);
  });
});
