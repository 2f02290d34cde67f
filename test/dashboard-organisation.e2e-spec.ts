import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { TestClient } from './support/client.js';
import { openBrowser, seriousViolations, signIn, tabTo } from './support/dashboard.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startFileServer, type FileServer } from './support/file-server.js';
import {
  createTestCertificateAuthority,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startDnsServer, type TestDnsServer } from './support/dns-server.js';
import { startLdapServer, type LdapServer } from './support/ldap-server.js';
import { addMember, type TestMember } from './support/people.js';
import { selfSignedCertificate } from './support/saml-idp.js';
import { startStack, type Stack } from './support/stack.js';

// The Organisation pages (members, single sign-on, target pool) in Chromium, driven by an
// admin of an organisation of this file's own, against the real API, a real slapd and a real
// HTTPS photo server (reached as https://localhost, allowed through the outbound policy).

let stack: Stack;
let client: TestClient;
let ca: TestCertificateAuthority;
let files: FileServer;
let ldap: LdapServer;
let dns: TestDnsServer;
let org: TestOrganization;
let token: string;
let admin: TestMember;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  [files, ldap, dns] = await Promise.all([
    startFileServer({ certificate: ca.leaf }),
    startLdapServer({ tls: true }),
    startDnsServer(),
  ]);
  stack = await startStack({
    worker: false,
    env: {
      OUTBOUND_EXTRA_CA_FILE: ca.caFile,
      OUTBOUND_PRIVATE_ALLOWLIST: 'localhost,127.0.0.1',
      DNS_RESOLVERS: dns.address,
    },
  });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
  admin = await addMember(stack, org, ['admin'], 'Olga Admin');
  ({ browser, page } = await openBrowser({ permissions: ['clipboard-read', 'clipboard-write'] }));
  await signIn(page, stack.baseUrl, admin, {
    path: '/organisation/members',
    heading: 'Members',
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await Promise.all([files?.close(), ldap?.stop(), dns?.close(), ca?.cleanup()]);
});

const clipboard = () =>
  page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );

const domain = () => `${randomBytes(4).toString('hex')}.example.com`;

async function openPage(link: string, heading: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

describe('the dashboard organisation pages', () => {
  it('adds an analyst by invitation (keyboard only), changes roles, and shows the last-admin refusal', async () => {
    await page.getByRole('row', { name: /Olga Admin/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Keyboard only: name, email, the default role (analyst) and invitation, Enter submits.
    const email = `ada.${randomBytes(3).toString('hex')}@example.test`;
    expect(await tabTo(page, page.getByLabel('Name (optional)'))).toBe(true);
    await page.keyboard.type('Ada Analyst');
    await page.keyboard.press('Tab');
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    const shown = page.getByTestId('invitation-url');
    await shown.waitFor();
    const invitationUrl = (await shown.textContent())!.trim();
    expect(invitationUrl).toMatch(new RegExp(`^${stack.baseUrl}/invitations/`));
    expect(await tabTo(page, page.getByRole('button', { name: 'Copy invitation link' }))).toBe(
      true,
    );
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await clipboard()).toBe(invitationUrl);
    // The link works (the page where they choose a password).
    expect((await fetch(invitationUrl)).status).toBe(200);

    const row = page.getByRole('row', { name: /Ada Analyst/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('invited');
    const [ada] = (await client.get(`/v2/analysts?status=invited`, { token })).body.data as {
      analyst_id: string;
      email: string;
    }[];
    expect(ada!.email).toBe(email);

    // Shown once: a fresh load of the page lists Ada but has no link to show.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await row.waitFor();
    expect(await page.getByTestId('invitation-url').count()).toBe(0);

    // The status filter asks the API: only the invited are listed.
    await page.getByLabel('Status').selectOption('invited');
    await page.getByRole('row', { name: /Olga Admin/ }).waitFor({ state: 'detached' });
    await row.waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('row', { name: /Olga Admin/ }).waitFor();

    // Ada becomes a judge too, as the API confirms; her (empty) track record is said plainly.
    await row.getByRole('button', { name: 'Manage Ada Analyst' }).click();
    const detail = page.getByRole('region', { name: 'Ada Analyst' });
    await detail.getByTestId('track-record-summary').waitFor();
    await detail.getByLabel(/^Judge/).check();
    await detail.getByRole('button', { name: 'Save roles' }).click();
    await detail.getByText('Saved: analyst, judge.').waitFor();
    const changed = await client.get(`/v2/analysts/${ada!.analyst_id}`, { token });
    expect(changed.body.roles).toEqual(['analyst', 'judge']);
    expect(await seriousViolations(page)).toEqual([]);

    // Olga is the only admin: demoting herself is refused, with the API's message and request id.
    await page
      .getByRole('row', { name: /Olga Admin/ })
      .getByRole('button', { name: 'Manage Olga Admin' })
      .click();
    const self = page.getByRole('region', { name: 'Olga Admin' });
    await self.getByLabel(/^Analyst/).check();
    await self.getByLabel(/^Admin/).uncheck();
    await self.getByRole('button', { name: 'Save roles' }).click();
    const refusal = self.getByRole('alert');
    await refusal.getByText('This is the last active admin of the organisation').waitFor();
    await refusal.getByText('Request id').waitFor();
    const still = await client.get(`/v2/analysts/${admin.analystId}`, { token });
    expect(still.body.roles).toEqual(['admin']);

    // A new invitation link replaces the old one, which stops working.
    await page.getByRole('button', { name: 'Manage Ada Analyst' }).click();
    await detail.getByRole('button', { name: 'Send a new invitation link' }).click();
    await page.getByText('A new invitation link for').waitFor();
    const renewed = (await page.getByTestId('invitation-url').textContent())!.trim();
    expect(renewed).not.toBe(invitationUrl);
    expect((await fetch(renewed)).status).toBe(200);
    expect((await fetch(invitationUrl)).status).toBe(404);

    // Disabling asks first; Cancel keeps Ada.
    await detail.getByRole('button', { name: 'Disable Ada Analyst' }).click();
    await detail.getByRole('button', { name: 'Cancel' }).click();
    expect((await client.get(`/v2/analysts/${ada!.analyst_id}`, { token })).body.status).toBe(
      'invited',
    );
    await detail.getByRole('button', { name: 'Disable Ada Analyst' }).click();
    await detail.getByRole('button', { name: 'Yes, disable' }).click();
    await detail.getByTestId('member-status').getByText('disabled').waitFor();
    expect((await client.get(`/v2/analysts/${ada!.analyst_id}`, { token })).body.status).toBe(
      'disabled',
    );
  });

  it('creates a SAML connection from metadata XML, tests it and shows its SP metadata URL', async () => {
    await openPage('Single sign-on', 'Single sign-on');
    await page.getByText('No connections yet').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const { certificate } = await selfSignedCertificate('idp.example.test');
    const base64 = certificate.replace(/-----[A-Z ]+-----|\s/g, '');
    const metadata = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.test/metadata">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${base64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.test/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
    await page.getByLabel('Name', { exact: true }).fill('Company IdP');
    await page.getByLabel('Email domains (comma-separated)').fill(domain());
    await page.getByLabel('IdP metadata XML').fill(metadata);
    await page.getByRole('button', { name: 'Add connection' }).click();
    const detail = page.getByRole('region', { name: 'Company IdP (SAML)' });
    await detail.waitFor();

    const metadataUrl = (await detail.getByTestId('sp-metadata-url').textContent())!.trim();
    const connectionId = (await detail.getByRole('code').first().textContent())!.trim();
    expect(metadataUrl).toBe(`${stack.baseUrl}/sso/saml/${connectionId}/metadata`);
    expect((await detail.getByTestId('acs-url').textContent())!.trim()).toMatch(
      new RegExp(`/sso/saml/${connectionId}/acs$`),
    );
    await detail.getByRole('button', { name: 'Copy SP metadata URL' }).click();
    expect(await clipboard()).toBe(metadataUrl);
    const served = await fetch(metadataUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/xml/);
    expect(await served.text()).toContain('EntityDescriptor');

    await detail.getByRole('button', { name: 'Test connection' }).click();
    const report = detail.getByTestId('test-report');
    await report.getByText('The connection works.').waitFor();
    expect(await report.textContent()).toMatch(/passed: idp_certificates\.0/);
    expect(await seriousViolations(page)).toEqual([]);

    const listed = await client.get(
      `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections`,
      { token },
    );
    expect(listed.body.data.map((connection: { id: string }) => connection.id)).toEqual([
      connectionId,
    ]);

    // Deleting asks first.
    await detail.getByRole('button', { name: 'Delete Company IdP' }).click();
    await detail.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No connections yet').waitFor();
  });

  it('creates an LDAP connection, verifies its domain and its test reaches the directory', async () => {
    const staffDomain = domain();
    await page.getByRole('radio', { name: /LDAP directory/ }).check();
    await page.getByLabel('Name', { exact: true }).fill('Staff directory');
    await page.getByLabel('Email domains (comma-separated)').fill(staffDomain);
    await page.getByLabel(/^Directory URL/).fill(ldap.ldapsUrl!);
    await page.getByLabel(/^CA certificate/).fill(ldap.caCertificate);
    await page.getByLabel('Service account DN').fill(ldap.serviceDn);
    await page.getByLabel('Service account password').fill(ldap.servicePassword);
    await page.getByLabel('Where people are (user base DN)').fill(ldap.peopleDn);
    await page.getByRole('button', { name: 'Add connection' }).click();
    const detail = page.getByRole('region', { name: 'Staff directory (LDAP)' });
    await detail.waitFor();

    // The domain signs nobody in until its record is published and found.
    const proof = detail.getByRole('row', { name: new RegExp(staffDomain.replace(/\./g, '\\.')) });
    expect(await proof.getByRole('cell').first().textContent()).toBe('pending');
    await detail.getByRole('button', { name: 'Verify now' }).click();
    await detail.getByRole('status').getByText(`Not found yet: ${staffDomain}`).waitFor();
    const [name, value] = await Promise.all(
      [1, 2].map(async (column) => (await proof.getByRole('cell').nth(column).textContent())!),
    );
    expect(name).toContain(`_sas-verification.${staffDomain}`);
    dns.publishTxt(
      `_sas-verification.${staffDomain}`,
      /sas-verification=[0-9a-f]+/.exec(value)![0],
    );
    await detail.getByRole('button', { name: 'Verify now' }).click();
    await detail.getByRole('status').getByText('Every domain is verified.').waitFor();
    await page.getByRole('row', { name: new RegExp(`${staffDomain} \\(verified\\)`) }).waitFor();

    await detail.getByRole('button', { name: 'Test connection' }).click();
    const report = detail.getByTestId('test-report');
    await report.getByText('The connection works.').waitFor();
    for (const check of ['connect', 'bind', 'search']) {
      expect(await report.textContent()).toContain(`passed: ${check}`);
    }
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('adds a target with photos to the pool, shows them and deletes it', async () => {
    await openPage('Target pool', 'Target pool');
    await page.getByText('The pool is empty').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Description').fill('A red lighthouse on a rocky point');
    await page.getByLabel('Descriptors (comma-separated, optional)').fill('tall, water, Red');
    await page.getByLabel('Latitude').fill('48.38');
    await page.getByLabel('Longitude').fill('-4.49');
    await page
      .getByLabel(/^Photo URLs/)
      .fill(`${files.url('/plain.png')}\n${files.url('/missing.png')}`);
    await page.getByRole('button', { name: 'Add target' }).click();
    await page.getByText('Target added with 1 of 2 photos stored').waitFor();

    const target = page.getByTestId('target');
    const photo = target.getByRole('img', { name: /^Photo 1 of A red lighthouse/ });
    await photo.waitFor();
    expect(
      await photo.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    await target.getByText(/Photo 2 failed: .*404/).waitFor();
    expect(await target.textContent()).toContain('tall, water, red');
    expect(await seriousViolations(page)).toEqual([]);

    const pool = await client.get('/v2/targets', { token });
    expect(pool.body.data).toHaveLength(1);
    expect(pool.body.data[0].photos.map((p: { status: string }) => p.status)).toEqual([
      'fetched',
      'failed',
    ]);

    await target.getByRole('button', { name: /^Delete target/ }).click();
    await target.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('The pool is empty').waitFor();
    expect((await client.get('/v2/targets', { token })).body.data).toHaveLength(0);
  });

  it('in test mode, says people and sign-in connections change only in live mode and disables the forms', async () => {
    await openPage('Members', 'Members');
    await page.getByRole('radio', { name: 'Test' }).first().check();
    await page.getByText('Test mode: you are seeing test data').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await page.getByText(/only change them in live mode/).waitFor();
    await page.getByRole('row', { name: /Olga Admin/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Add member' }).isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // Sign-in connections too: the live one shows, nothing changes it from here.
    await openPage('Single sign-on', 'Single sign-on');
    await page.getByText(/see your sign-in connections .*only change them in live mode/).waitFor();
    const row = page.getByRole('row', { name: /Staff directory/ });
    await row.waitFor();
    expect(await page.getByRole('button', { name: 'Add connection' }).count()).toBe(0);
    await row.getByRole('button', { name: /^Open/ }).click();
    const detail = page.getByRole('region', { name: 'Staff directory (LDAP)' });
    await detail.waitFor();
    expect(await detail.getByRole('button', { name: 'Test connection' }).isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
