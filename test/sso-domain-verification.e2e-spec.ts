import { randomBytes } from 'node:crypto';
import { Client } from '@sas/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { DomainVerificationRecheck, SsoSignInService } from '#sso';
import { TestClient } from './support/client.js';
import { startDnsServer, type TestDnsServer } from './support/dns-server.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * SSO email domains are proven before they route anyone (issue 37): any
 * organisation could claim any domain — another tenant's, the operator's —
 * and the sign-in page then sent its people to the claimant's IdP. A claim
 * is pending until the domain publishes its TXT record, found by
 * `verify-domains` or the worker's hourly look-up, through a real DNS server
 * this test runs (DNS_RESOLVERS).
 */
let stack: Stack;
let client: TestClient;
let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startDnsServer();
  stack = await startStack({
    env: { DNS_RESOLVERS: dns.address, OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' },
  });
  client = await TestClient.for(stack);
});
afterAll(async () => {
  await stack?.close();
  await dns?.close();
});

interface Claimant {
  org: TestOrganization;
  token: string;
  path: string;
}

async function claimant(): Promise<Claimant> {
  const org = await createOrganization(stack, client);
  return {
    org,
    token: await org.token(),
    path: `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections`,
  };
}

function connectionBody(domains: string[]) {
  return {
    type: 'ldap',
    name: 'Directory',
    email_domains: domains,
    url: 'ldaps://127.0.0.1:1',
    bind_dn: 'cn=service,dc=example,dc=com',
    bind_password: 'service secret',
    user_base_dn: 'ou=people,dc=example,dc=com',
    user_filter: '(mail={username})',
  };
}

const fresh = () => `${randomBytes(4).toString('hex')}.example.org`;

async function create(who: Claimant, domains: string[]) {
  const created = await client.post(who.path, { token: who.token, json: connectionBody(domains) });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

async function verify(who: Claimant, connectionId: string) {
  const verified = await client.post(`${who.path}/${connectionId}/verify-domains`, {
    token: who.token,
  });
  expect(verified.status, verified.text).toBe(200);
  return verified.body;
}

const routedTo = async (email: string) =>
  (await stack.api.get(SsoSignInService).connectionForEmail(email))?.id ?? null;

describe('SSO email domains', () => {
  it('route nothing and block nobody until proven; the first to prove one holds it', async () => {
    const domain = fresh();
    const [owner, squatter, late] = [await claimant(), await claimant(), await claimant()];

    const claimed = await create(squatter, [domain]);
    expect(claimed.domains).toEqual([
      {
        domain,
        status: 'pending',
        verification: {
          type: 'dns_txt',
          name: `_sas-verification.${domain}`,
          value: expect.stringMatching(/^sas-verification=[0-9a-f]{32}$/),
        },
      },
    ]);
    // A pending claim blocks nobody, and routes nobody.
    const real = await create(owner, [domain]);
    expect(real.domains[0].verification.value).not.toBe(claimed.domains[0].verification.value);
    expect(await routedTo(`someone@${domain}`)).toBeNull();

    // Without the record, nothing is proven.
    expect((await verify(owner, real.id)).domains[0].status).toBe('pending');
    expect(dns.questions).toContain(`_sas-verification.${domain}`);

    // The domain's owner publishes its record: the owner's claim, not the squatter's, is proven.
    dns.publishTxt(real.domains[0].verification.name, real.domains[0].verification.value);
    expect((await verify(squatter, claimed.id)).domains[0].status).toBe('pending');
    expect((await verify(owner, real.id)).domains[0].status).toBe('verified');
    const routed = await routedTo(`someone@${domain.toUpperCase()}`);
    expect(routed === null ? null : toPublicId('ssoConnection', routed)).toBe(real.id);

    // Now held: another organisation's claim is 409 naming email_domains, and a
    // claim made before stays pending even with its own record published.
    const refused = await client.post(late.path, {
      token: late.token,
      json: connectionBody([domain]),
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.field).toBe('email_domains');
    dns.publishTxt(claimed.domains[0].verification.name, claimed.domains[0].verification.value);
    expect((await verify(squatter, claimed.id)).domains[0].status).toBe('pending');
  });

  it('stay verified when the connection is saved again, and a new domain starts pending', async () => {
    const who = await claimant();
    const [first, second] = [fresh(), fresh()];
    const created = await create(who, [first]);
    dns.publishTxt(created.domains[0].verification.name, created.domains[0].verification.value);
    await verify(who, created.id);
    const saved = await client.patch(`${who.path}/${created.id}`, {
      token: who.token,
      json: { email_domains: [first, second], name: 'Renamed' },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.domains.map((d: { status: string }) => d.status)).toEqual([
      'verified',
      'pending',
    ]);
    expect(saved.body.domains[0].verification).toEqual(created.domains[0].verification);
  });

  it('are looked up again by the worker, so a record published later is found unasked', async () => {
    const who = await claimant();
    const created = await create(who, [fresh()]);
    const recheck = stack.worker!.get(DomainVerificationRecheck);
    // Checked moments ago by nobody: due at once (never checked).
    dns.publishTxt(created.domains[0].verification.name, created.domains[0].verification.value);
    const outcome = await recheck.run();
    expect(outcome.verified).toBeGreaterThanOrEqual(1);
    const read = await client.get(`${who.path}/${created.id}`, { token: who.token });
    expect(read.body.domains[0].status).toBe('verified');
  });

  it('are verified through the SDK as through the API', async () => {
    const who = await claimant();
    const sdk = new Client({ baseUrl: stack.baseUrl, accessToken: who.token });
    const organizationId = toPublicId('organization', who.org.organizationId);
    const domain = fresh();
    const created = await sdk.ssoConnections.create(organizationId, {
      ...connectionBody([domain]),
      type: 'ldap',
    });
    const [claim] = created.domains;
    expect(claim).toMatchObject({ domain, status: 'pending' });
    dns.publishTxt(claim!.verification.name, claim!.verification.value);
    const verified = await sdk.ssoConnections.verifyDomains(organizationId, created.id);
    expect(verified.domains).toEqual([{ ...claim, status: 'verified' }]);
  });

  it('never include public webmail domains', async () => {
    const who = await claimant();
    for (const domain of ['gmail.com', 'Outlook.com', 'hotmail.co.uk', 'proton.me']) {
      const refused = await client.post(who.path, {
        token: who.token,
        json: connectionBody([domain]),
      });
      expect(refused.status, domain).toBe(400);
      expect(refused.body.error.details.field, domain).toBe('email_domains');
    }
  });
});
