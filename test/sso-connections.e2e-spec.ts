import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scope, toPublicId } from '#common';
import { Sql } from '#database';
import { IdpMetadataRefresh } from '#sso';
import { AUDIT_COLUMNS, auditOf as auditOfRequest, type AuditRow } from './support/audit.js';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startLdapServer, type LdapServer } from './support/ldap-server.js';
import { selfSignedCertificate, startSamlIdp, type SamlIdp } from './support/saml-idp.js';
import { startDnsServer, type TestDnsServer } from './support/dns-server.js';
import { startStack, type Stack } from './support/stack.js';
import { proveDomains } from './support/sso-domains.js';

/**
 * SSO connections (issue 17): created, read, listed, changed, tested and
 * deleted by the organisation, with a real SimpleSAMLphp IdP's metadata, an
 * https metadata URL and a real slapd directory; secrets never returned.
 */

let stack: Stack;
let client: TestClient;
let sql: Sql;
let ca: TestCertificateAuthority;
let idp: SamlIdp;
let ldap: LdapServer;
let dns: TestDnsServer;
let metadataServer: Server;
let metadataOrigin: string;
/** What the metadata URL serves; null: 503. */
let servedMetadata: string | null;

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  [idp, ldap] = await Promise.all([startSamlIdp({ users: [] }), startLdapServer({ tls: true })]);
  metadataServer = createServer(
    { minVersion: 'TLSv1.2', cert: ca.leaf.certPem, key: ca.leaf.keyPem },
    (request, response) => {
      if (request.url === '/idp/metadata.xml' && servedMetadata !== null) {
        response.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
        response.end(servedMetadata);
      } else {
        response.writeHead(servedMetadata === null ? 503 : 404).end();
      }
    },
  );
  await new Promise<void>((resolve) => metadataServer.listen(0, '127.0.0.1', resolve));
  metadataOrigin = `https://localhost:${(metadataServer.address() as AddressInfo).port}`;
  servedMetadata = idp.metadataXml;
  dns = await startDnsServer();
  stack = await startStack({
    worker: true,
    // The IdP's metadata server and the directory run on this machine: allowed as an operator would.
    env: {
      OUTBOUND_EXTRA_CA_FILE: ca.caFile,
      OUTBOUND_PRIVATE_ALLOWLIST: 'localhost,127.0.0.1',
      DNS_RESOLVERS: dns.address,
    },
  });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});

afterAll(async () => {
  await stack?.close();
  metadataServer?.close();
  await dns?.close();
  await Promise.all([idp?.stop(), ldap?.stop(), ca?.cleanup()]);
});

/** The audit events a response's request recorded, oldest first. */
function auditOf(response: ApiResponse): Promise<AuditRow[]> {
  return auditOfRequest(sql, response);
}

const domain = () => `${randomBytes(4).toString('hex')}.example.com`;
const path = (org: TestOrganization) =>
  `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections`;

function ldapBody(overrides: Record<string, unknown> = {}) {
  return {
    type: 'ldap',
    name: 'Staff directory',
    email_domains: [domain()],
    url: ldap.ldapsUrl,
    ca_certificate: ldap.caCertificate,
    bind_dn: ldap.serviceDn,
    bind_password: ldap.servicePassword,
    user_base_dn: ldap.peopleDn,
    user_filter: '(mail={username})',
    ...overrides,
  };
}

describe('SAML connections', () => {
  it('take the IdP metadata and answer with our SP endpoints and public metadata', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const created = await client.post(path(org), {
      token,
      json: {
        type: 'saml',
        name: 'SimpleSAMLphp',
        email_domains: [domain()],
        default_scopes: ['remote-viewing:read'],
        group_scopes: { analysts: ['remote-viewing:write', 'remote-viewing:read'] },
        idp_metadata_xml: idp.metadataXml,
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect(id).toMatch(/^sso_/);
    expect(created.body).toMatchObject({
      type: 'saml',
      idp_entity_id: idp.entityId,
      idp_sso_url: idp.ssoUrl,
      allow_idp_initiated: false,
      clock_skew_seconds: 60,
      jit_provisioning: true,
      enabled: true,
      group_scopes: { analysts: ['remote-viewing:read', 'remote-viewing:write'] },
      sp_entity_id: `${stack.settings.publicUrl}/sso/saml/${id}`,
      acs_url: `${stack.settings.publicUrl}/sso/saml/${id}/acs`,
      sp_metadata_url: `${stack.settings.publicUrl}/sso/saml/${id}/metadata`,
    });
    expect(created.body.idp_certificates[0]).toContain('BEGIN CERTIFICATE');

    // Public: no credentials.
    const metadata = await client.get(`/sso/saml/${id}/metadata`);
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get('content-type')).toMatch(/^application\/samlmetadata\+xml/);
    expect(metadata.text).toContain(`entityID="${created.body.sp_entity_id}"`);
    expect(metadata.text).toContain(created.body.acs_url);
    expect(metadata.text).toMatch(/AuthnRequestsSigned="true"/);
    expect(metadata.text).toContain('X509Certificate');
    // The SP private key is sealed, never stored as PEM.
    const [stored] = await sql.rows<{ secret_sealed: string }>(
      `SELECT secret_sealed FROM sso_connections WHERE organization_id = $1`,
      [org.organizationId],
    );
    expect(stored!.secret_sealed).not.toContain('PRIVATE KEY');
    expect((await client.get('/sso/saml/sso_01jx2k9v3sfd8tq4m7n6p5r2wz/metadata')).status).toBe(
      404,
    );

    // Its audit event: by the caller, its settings in the API's names, no key, no PEM.
    const [event, ...more] = await auditOf(created);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      organization_id: org.organizationId,
      mode: 'live',
      action: 'sso_connection.created',
      actor_type: 'client',
      actor_id: org.clientId,
      target_type: 'sso_connection',
      target_id: id,
      changes: {
        type: { before: null, after: 'saml' },
        idp_entity_id: { before: null, after: idp.entityId },
        idp_certificates: { before: null, after: '[redacted]' },
        default_scopes: { before: null, after: ['remote-viewing:read'] },
      },
    });
    expect(JSON.stringify(event)).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
  });

  it('fetch the metadata from an https URL, and take the IdP as fields', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const fromUrl = await client.post(path(org), {
      token,
      json: {
        type: 'saml',
        name: 'By URL',
        email_domains: [domain()],
        idp_metadata_url: `${metadataOrigin}/idp/metadata.xml`,
      },
    });
    expect(fromUrl.status, fromUrl.text).toBe(201);
    expect(fromUrl.body.idp_entity_id).toBe(idp.entityId);
    expect(fromUrl.body.metadata_fetched_at).not.toBeNull();
    const tested = await client.post(`${path(org)}/${fromUrl.body.id}/test`, { token });
    expect(tested.status).toBe(200);
    expect(tested.body.ok).toBe(true);
    expect(tested.body.checks.map((c: { check: string }) => c.check)).toEqual([
      'metadata',
      'idp_certificates.0',
    ]);

    const fromFields = await client.post(path(org), {
      token,
      json: {
        type: 'saml',
        name: 'By fields',
        email_domains: [domain()],
        idp_entity_id: 'https://idp.example.com/entity',
        idp_sso_url: 'https://idp.example.com/sso',
        idp_certificates: [idp.certificate],
        allow_idp_initiated: true,
        clock_skew_seconds: 120,
      },
    });
    expect(fromFields.status, fromFields.text).toBe(201);
    expect(fromFields.body).toMatchObject({ allow_idp_initiated: true, clock_skew_seconds: 120 });
  });

  it('read the metadata URL again daily, keeping the last good metadata when it fails', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    servedMetadata = idp.metadataXml;
    const created = await client.post(path(org), {
      token,
      json: {
        type: 'saml',
        name: 'Rotating',
        email_domains: [domain()],
        idp_metadata_url: `${metadataOrigin}/idp/metadata.xml`,
      },
    });
    expect(created.status, created.text).toBe(201);
    const refresh = stack.worker!.get(IdpMetadataRefresh);
    const connection = `${path(org)}/${created.body.id}`;
    const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

    // The IdP publishes a new signing certificate; a day later the connection has it.
    const rotated = await selfSignedCertificate('rotated idp');
    servedMetadata = idp.metadataXml.replace(body(idp.certificate), body(rotated.certificate));
    expect(servedMetadata).not.toBe(idp.metadataXml);
    await refresh.run(new Date(Date.now() + 2 * 24 * 3600 * 1000));
    const after = await client.get(connection, { token });
    expect(after.body.idp_certificates.map(body)).toEqual([body(rotated.certificate)]);
    // The service changed the connection: on record, the certificates as changed only.
    const refreshed = await sql.rows<AuditRow>(
      `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE target_id = $1 AND action = $2`,
      [created.body.id, 'sso_connection.updated'],
    );
    expect(refreshed).toEqual([
      expect.objectContaining({
        organization_id: org.organizationId,
        mode: 'live',
        actor_type: 'system',
        actor_id: 'sso.metadata-refresh',
        changes: { idp_certificates: { before: '[redacted]', after: '[redacted]' } },
      }),
    ]);
    expect(Date.parse(after.body.metadata_fetched_at)).toBeGreaterThan(
      Date.parse(created.body.metadata_fetched_at),
    );

    // The URL failing keeps what it had.
    servedMetadata = null;
    await refresh.run(new Date(Date.now() + 5 * 24 * 3600 * 1000));
    const kept = await client.get(connection, { token });
    expect(kept.body.idp_certificates.map(body)).toEqual([body(rotated.certificate)]);
    expect(kept.body.metadata_fetched_at).toBe(after.body.metadata_fetched_at);
    servedMetadata = idp.metadataXml;
  });

  it('refuse bad settings naming the field', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const base = { type: 'saml', name: 'Bad', email_domains: [domain()] };
    const cases: [Record<string, unknown>, string][] = [
      [{ idp_metadata_xml: '<not xml' }, 'idp_metadata_xml'],
      [
        { idp_metadata_xml: `<!DOCTYPE x [<!ENTITY e "boom">]>${idp.metadataXml}` },
        'idp_metadata_xml',
      ],
      [{ idp_metadata_url: 'http://localhost/metadata.xml' }, 'idp_metadata_url'],
      [{ idp_metadata_url: `${metadataOrigin}/missing.xml` }, 'idp_metadata_url'],
      [{ idp_metadata_url: 'https://127.0.0.1:1/metadata.xml' }, 'idp_metadata_url'],
      [{ idp_entity_id: 'x', idp_sso_url: 'https://idp.example.com/sso' }, 'idp_certificates'],
      [
        {
          idp_entity_id: 'x',
          idp_sso_url: 'https://idp.example.com/sso',
          idp_certificates: ['nope'],
        },
        'idp_certificates.0',
      ],
      [
        { idp_entity_id: 'x', idp_sso_url: 'ftp://idp', idp_certificates: [idp.certificate] },
        'idp_sso_url',
      ],
      [{}, 'idp_metadata_xml'],
      [{ idp_metadata_xml: idp.metadataXml, clock_skew_seconds: 601 }, 'clock_skew_seconds'],
      [{ idp_metadata_xml: idp.metadataXml, bind_dn: 'cn=x' }, 'bind_dn'],
      [{ idp_metadata_xml: idp.metadataXml, default_scopes: ['nope:nope'] }, 'default_scopes'],
      [{ idp_metadata_xml: idp.metadataXml, email_domains: ['not a domain'] }, 'email_domains.0'],
      [{ idp_metadata_xml: idp.metadataXml, email_domains: [] }, 'email_domains'],
      [
        { idp_metadata_xml: idp.metadataXml, group_scopes: { g: 'remote-viewing:read' } },
        'group_scopes.g',
      ],
    ];
    for (const [fields, field] of cases) {
      const response = await client.post(path(org), { token, json: { ...base, ...fields } });
      expect(response.status, `${field}: ${response.text}`).toBe(400);
      expect(response.body.error.details.field, response.text).toBe(field);
    }
    expect(
      await sql.rows(`SELECT 1 FROM sso_connections WHERE organization_id = $1`, [
        org.organizationId,
      ]),
    ).toEqual([]);
  });
});

describe('LDAP connections', () => {
  it('seal the bind password, never return it, and test against the directory', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const created = await client.post(path(org), { token, json: ldapBody() });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      type: 'ldap',
      url: ldap.ldapsUrl,
      bind_dn: ldap.serviceDn,
      group_name_attribute: 'cn',
      nested_groups: false,
      email_attribute: 'mail',
    });
    expect(created.text).not.toContain(ldap.servicePassword);
    expect(created.body).not.toHaveProperty('bind_password');
    const [stored] = await sql.rows<{ secret_sealed: string; config: unknown }>(
      `SELECT secret_sealed, config FROM sso_connections WHERE organization_id = $1`,
      [org.organizationId],
    );
    expect(stored!.secret_sealed).not.toContain(ldap.servicePassword);
    expect(JSON.stringify(stored!.config)).not.toContain(ldap.servicePassword);

    const id = created.body.id as string;
    const [createdEvent] = await auditOf(created);
    expect(createdEvent).toMatchObject({
      action: 'sso_connection.created',
      actor_type: 'client',
      actor_id: org.clientId,
      target_type: 'sso_connection',
      target_id: id,
      changes: {
        url: { before: null, after: ldap.ldapsUrl },
        bind_dn: { before: null, after: ldap.serviceDn },
        bind_password: { before: null, after: '[redacted]' },
        ca_certificate: { before: null, after: '[redacted]' },
      },
    });
    expect(JSON.stringify(createdEvent)).not.toContain(ldap.servicePassword);
    expect(JSON.stringify(createdEvent)).not.toContain('BEGIN CERTIFICATE');
    const tested = await client.post(`${path(org)}/${id}/test`, { token });
    expect(tested.status).toBe(200);
    expect(tested.body.ok, tested.text).toBe(true);
    expect(tested.body.checks.map((c: { check: string }) => c.check)).toEqual([
      'connect',
      'tls',
      'bind',
      'search',
    ]);
    // Testing changes nothing: nothing on record.
    expect(await auditOf(tested)).toEqual([]);

    // A wrong service password: the test says which step failed, without the password.
    const changed = await client.patch(`${path(org)}/${id}`, {
      token,
      json: { bind_password: 'not-the-password' },
    });
    expect(changed.status).toBe(200);
    const [changedEvent, ...alsoChanged] = await auditOf(changed);
    expect(alsoChanged).toEqual([]);
    expect(changedEvent).toMatchObject({
      action: 'sso_connection.updated',
      actor_id: org.clientId,
      target_id: id,
      changes: { bind_password: { before: '[redacted]', after: '[redacted]' } },
    });
    expect(Object.keys(changedEvent!.changes!)).toEqual(['bind_password']);
    expect(JSON.stringify(changedEvent)).not.toContain('not-the-password');
    const failing = await client.post(`${path(org)}/${id}/test`, { token });
    expect(failing.body.ok).toBe(false);
    const bind = failing.body.checks.find((c: { check: string }) => c.check === 'bind');
    expect(bind).toMatchObject({ ok: false });
    expect(failing.text).not.toContain('not-the-password');
  });

  it('take plain LDAP only to an allow-listed host, no private destination else, and refuse bad settings', async () => {
    const org = await createOrganization(stack, client);
    const live = await org.token();
    const plain = { url: ldap.url, allow_insecure: true, ca_certificate: null };
    const allowed = await client.post(path(org), { token: live, json: ldapBody(plain) });
    expect(allowed.status, allowed.text).toBe(201);

    // 127.0.0.2 is loopback too, but not on OUTBOUND_PRIVATE_ALLOWLIST.
    const elsewhere = ldap.url.replace('127.0.0.1', '127.0.0.2');
    const plainElsewhere = await client.post(path(org), {
      token: live,
      json: ldapBody({ ...plain, url: elsewhere }),
    });
    expect(plainElsewhere.status).toBe(400);
    expect(plainElsewhere.body.error.details.field).toBe('allow_insecure');
    const privateElsewhere = await client.post(path(org), {
      token: live,
      json: ldapBody({ url: ldap.ldapsUrl!.replace('127.0.0.1', '127.0.0.2') }),
    });
    expect(privateElsewhere.status).toBe(400);
    expect(privateElsewhere.body.error.details).toMatchObject({
      field: 'url',
      issue: 'the destination is not allowed: only public addresses may be reached',
    });
    const moved = await client.patch(`${path(org)}/${allowed.body.id}`, {
      token: live,
      json: { url: elsewhere },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.details.field).toBe('allow_insecure');

    const cases: [Record<string, unknown>, string][] = [
      [{ user_filter: '(mail=someone)' }, 'user_filter'],
      [{ ca_certificate: 'not a pem' }, 'ca_certificate'],
      [{ bind_dn: 'not a dn' }, 'bind_dn'],
      [{ url: 'https://ldap.example.com' }, 'url'],
      [{ bind_password: undefined }, 'bind_password'],
      [{ idp_metadata_xml: '<x/>' }, 'idp_metadata_xml'],
    ];
    for (const [fields, field] of cases) {
      const response = await client.post(path(org), { token: live, json: ldapBody(fields) });
      expect(response.status, `${field}: ${response.text}`).toBe(400);
      expect(response.body.error.details.field, response.text).toBe(field);
    }
  });
});

describe('connections of an organisation', () => {
  it('list, change, disable and delete; type cannot change; a proven domain is one connection’s', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const first = await client.post(path(org), { token, json: ldapBody() });
    const second = await client.post(path(org), { token, json: ldapBody() });
    expect(second.status).toBe(201);

    const listed = await client.get(path(org), { token });
    expect(listed.status).toBe(200);
    // Newest first, as every v2 list.
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([
      second.body.id,
      first.body.id,
    ]);

    // Another organisation cannot take a domain that is proven, and signs in, already.
    const verified = await proveDomains(client, dns, path(org), first.body, { token });
    expect(await auditOf(verified)).toEqual([
      expect.objectContaining({
        action: 'sso_connection.domains_verified',
        actor_type: 'client',
        actor_id: org.clientId,
        target_id: first.body.id,
        details: { domains: first.body.email_domains },
      }),
    ]);
    const other = await createOrganization(stack, client);
    const taken = await client.post(path(other), {
      token: await other.token(),
      json: ldapBody({ email_domains: [first.body.email_domains[0].toUpperCase()] }),
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details.field).toBe('email_domains');

    const renamed = await client.patch(`${path(org)}/${first.body.id}`, {
      token,
      json: { name: 'Renamed', enabled: false, email_domains: ['moved.example.org'] },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'Renamed',
      enabled: false,
      email_domains: ['moved.example.org'],
    });
    const [renamedEvent] = await auditOf(renamed);
    expect(renamedEvent).toMatchObject({
      action: 'sso_connection.updated',
      target_id: first.body.id,
    });
    expect(renamedEvent!.changes).toEqual({
      name: { before: 'Staff directory', after: 'Renamed' },
      email_domains: { before: first.body.email_domains, after: ['moved.example.org'] },
      enabled: { before: true, after: false },
    });
    // The old domain is free again.
    const freed = await client.post(path(other), {
      token: await other.token(),
      json: ldapBody({ email_domains: first.body.email_domains }),
    });
    expect(freed.status, freed.text).toBe(201);

    const retyped = await client.patch(`${path(org)}/${first.body.id}`, {
      token,
      json: { type: 'saml' },
    });
    expect(retyped.status).toBe(400);
    expect(retyped.body.error.details.field).toBe('type');

    const deleted = await client.delete(`${path(org)}/${first.body.id}`, { token });
    expect(deleted.status).toBe(204);
    expect(await auditOf(deleted)).toEqual([
      expect.objectContaining({
        action: 'sso_connection.deleted',
        actor_type: 'client',
        actor_id: org.clientId,
        target_type: 'sso_connection',
        target_id: first.body.id,
        details: { type: 'ldap', name: 'Renamed' },
      }),
    ]);
    expect((await client.get(`${path(org)}/${first.body.id}`, { token })).status).toBe(404);
    const domains = await sql.rows(`SELECT 1 FROM sso_email_domains WHERE domain = $1`, [
      'moved.example.org',
    ]);
    expect(domains).toEqual([]);
  });

  it('keep organisations apart, change only in live mode, and need organizations scopes', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const created = await client.post(path(org), { token, json: ldapBody() });
    const other = await createOrganization(stack, client);
    const otherToken = await other.token();
    // Another organisation's path, or its own path with another's connection id: 404.
    expect((await client.get(path(org), { token: otherToken })).status).toBe(404);
    expect(
      (await client.get(`${path(other)}/${created.body.id}`, { token: otherToken })).status,
    ).toBe(404);
    expect(
      (
        await client.patch(`${path(other)}/${created.body.id}`, {
          token: otherToken,
          json: { name: 'x' },
        })
      ).status,
    ).toBe(404);
    // The same organisation's test mode reads its connections, and changes none of them.
    const testKey = await org.apiKey(undefined, 'test');
    expect((await client.get(`${path(org)}/${created.body.id}`, { token: testKey })).status).toBe(
      200,
    );
    const listed = await client.get(path(org), { token: testKey });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    for (const [method, suffix, json] of [
      ['POST', '', ldapBody()],
      ['PATCH', `/${created.body.id}`, { name: 'x' }],
      ['POST', `/${created.body.id}/test`, undefined],
      ['DELETE', `/${created.body.id}`, undefined],
    ] as const) {
      const refused = await client.request(method, `${path(org)}${suffix}`, {
        token: testKey,
        json,
      });
      expect(refused.status, `${method} ${suffix}`).toBe(403);
      expect(refused.body.error.message).toMatch(/live-mode credential/);
    }

    const reader = await org.token([Scope.OrganizationsRead]);
    expect((await client.get(path(org), { token: reader })).status).toBe(200);
    expect((await client.post(path(org), { token: reader, json: ldapBody() })).status).toBe(403);
    const writerWithoutScopes = await org.token([Scope.OrganizationsWrite]);
    const beyond = await client.post(path(org), {
      token: writerWithoutScopes,
      json: ldapBody({ default_scopes: ['remote-viewing:write'] }),
    });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.details.field).toBe('default_scopes');
  });
});
