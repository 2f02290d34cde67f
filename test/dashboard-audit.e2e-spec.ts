import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { TestClient } from './support/client.js';
import { isFocused, openBrowser, seriousViolations, signIn } from './support/dashboard.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';

// The Audit log page and the SCIM tokens of the Single sign-on page in Chromium, driven by an
// admin of an organisation of this file's own, against the real API.

const NDJSON = 'application/x-ndjson';
/** More keys than the smallest page holds, so the log has a second page. */
const KEYS = 12;

let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;
let admin: TestMember;
let browser: Browser;
let page: Page;
/** The keys created through the API, oldest first, with the request that created each. */
const keys: { id: string; name: string; requestId: string }[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
  admin = await addMember(stack, org, ['admin'], 'Audra Admin');
  ({ browser, page } = await openBrowser({
    permissions: ['clipboard-read', 'clipboard-write'],
  }));
  await signIn(page, stack.baseUrl, admin, { path: '/organisation/members', heading: 'Members' });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const clipboard = () =>
  page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );

async function openPage(link: string, heading: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** A day of the local zone (the browser's too) as a date field takes it, `days` from today. */
function day(days = 0): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  return date.toLocaleDateString('en-CA');
}

const organizationPath = () =>
  `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}`;

describe('the dashboard audit log', () => {
  it('lists an API key created through the API, filters by action, pages, and expands a row', async () => {
    for (let index = 1; index <= KEYS; index++) {
      const name = `audited key ${index}`;
      const created = await client.post('/v1/api-keys', {
        token,
        json: { name, scopes: ['remote-viewing:read'] },
      });
      expect(created.status, created.text).toBe(201);
      keys.push({ id: created.body.id, name, requestId: created.headers.get('x-request-id')! });
    }
    const newest = keys.at(-1)!;

    await openPage('Audit log', 'Audit log');
    const table = page.getByRole('table', { name: 'Audit events, newest first' });
    const newestRow = table
      .getByRole('row', { name: new RegExp(`api_key\\.created .*${newest.id}`) })
      .first();
    await newestRow.waitFor();
    expect(await newestRow.textContent()).toContain(org.clientId);
    expect(await seriousViolations(page)).toEqual([]);

    // The action filter (with the smallest page) asks the API: only the keys' creations, ten a page.
    await page.getByLabel('Action').selectOption('api_key.created');
    await page.getByLabel('Per page').selectOption('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('heading', { level: 2, name: `Matching events (${KEYS})` }).waitFor();
    expect(page.url()).toContain('action=api_key.created');
    const details = table.getByRole('button', { name: /^Details/ });
    await expect.poll(() => details.count()).toBe(10);
    const pager = page.getByRole('navigation', { name: 'Audit events pages' });
    await pager.getByText(`Page 1, ${KEYS} in all`).waitFor();
    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText(`Page 2, ${KEYS} in all`).waitFor();
    await expect.poll(() => details.count()).toBe(KEYS - 10);
    // Newest first: the second page holds the two oldest keys.
    await table.getByRole('row', { name: new RegExp(keys[0]!.id) }).waitFor();
    await table.getByRole('row', { name: new RegExp(keys[1]!.id) }).waitFor();
    expect(await table.textContent()).not.toContain(newest.id);
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await pager.getByText(`Page 1, ${KEYS} in all`).waitFor();

    // Expanded from the keyboard: the changes before and after, the request and its origin.
    const toggle = newestRow.getByRole('button', { name: /^Details/ });
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const detail = page.locator(`#${(await toggle.getAttribute('aria-controls'))!}`);
    const changes = detail.getByRole('table', {
      name: `Changes of api_key.created on ${newest.id}`,
    });
    const nameChange = changes.getByRole('row', { name: /^name/ });
    expect(await nameChange.getByRole('cell').allTextContents()).toEqual(['none', newest.name]);
    expect(await changes.getByRole('row', { name: /^scopes/ }).textContent()).toContain(
      'remote-viewing:read',
    );
    expect(await changes.getByRole('row', { name: /^mode/ }).textContent()).toContain('live');
    expect(await detail.textContent()).toContain(newest.requestId);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    await detail.waitFor({ state: 'detached' });

    // The target filter and the dates: one key's event; none before today.
    await page.getByLabel('Target id').fill(newest.id);
    await page.getByLabel('From date').fill(day());
    await page.getByLabel('To date (inclusive)').fill(day());
    await page.getByLabel('Target id').press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Matching events (1)' }).waitFor();
    await page.getByLabel('To date (inclusive)').fill(day(-1));
    await page.getByLabel('From date').fill(day(-1));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No event matches these filters.').waitFor();
    await page.getByRole('link', { name: 'Clear the filters' }).click();
    await page.getByRole('heading', { level: 2, name: /^All events/ }).waitFor();
    await newestRow.waitFor();
  });

  it('exports the filtered events as NDJSON under the dashboard’s own CSP', async () => {
    // A browser context that honours the CSP header (the shared one bypasses it for axe-core).
    const strict = await browser.newContext({ acceptDownloads: true });
    try {
      const strictPage = await strict.newPage();
      const refused: string[] = [];
      strictPage.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      await signIn(strictPage, stack.baseUrl, admin, {
        path: '/organisation/audit-log?action=api_key.created',
        heading: 'Audit log',
      });
      await strictPage
        .getByRole('heading', { level: 2, name: `Matching events (${KEYS})` })
        .waitFor();
      const [download] = await Promise.all([
        strictPage.waitForEvent('download'),
        strictPage.getByRole('button', { name: 'Export' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^audit-events-live-\d{4}-\d{2}-\d{2}\.ndjson$/);
      const content = await readFile((await download.path())!, 'utf8');
      await strictPage.getByRole('status').getByText(`Exported ${KEYS} events`).waitFor();
      expect(refused).toEqual([]);

      // One event a line, exactly what the API streams for the same selection.
      const lines = content.trimEnd().split('\n');
      expect(lines).toHaveLength(KEYS);
      const events = lines.map(
        (line) => JSON.parse(line) as { action: string; target: { id: string } },
      );
      expect(events.every((event) => event.action === 'api_key.created')).toBe(true);
      expect(events.map((event) => event.target.id)).toEqual(keys.map((key) => key.id).reverse());
      const streamed = await client.get('/v2/audit-events?action=api_key.created', {
        token,
        headers: { accept: NDJSON },
      });
      expect(streamed.status).toBe(200);
      expect(content).toBe(streamed.text);
    } finally {
      await strict.close();
    }
  });

  it('issues a SCIM token on the Single sign-on page, shows it once, lists it and revokes it', async () => {
    await openPage('Single sign-on', 'Single sign-on');
    const scim = page.getByRole('region', { name: 'SCIM provisioning' });
    await scim.getByText('No SCIM tokens yet').waitFor();
    const baseUrl = (await scim.getByTestId('scim-base-url').textContent())!.trim();
    expect(baseUrl).toBe(`${stack.baseUrl}/scim/v2`);
    await scim.getByRole('button', { name: 'Copy SCIM base URL' }).click();
    await expect.poll(clipboard).toBe(baseUrl);

    await scim.getByLabel('Token name').fill('Okta');
    await scim.getByLabel('Token name').press('Enter');
    const shown = scim.getByTestId('scim-token');
    await shown.waitFor();
    const scimToken = (await shown.textContent())!.trim();
    expect(scimToken).toMatch(/^sas_scim_[A-Za-z0-9_-]{43}$/);
    await scim.getByText('you will not see it again').waitFor();
    await scim.getByRole('button', { name: 'Copy SCIM token' }).click();
    await expect.poll(clipboard).toBe(scimToken);
    const row = scim.getByRole('row', { name: /^Okta/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      expect.any(String),
      'never',
      'no (it works)',
      'Revoke Okta',
    ]);
    expect(await seriousViolations(page)).toEqual([]);

    // The token provisions at the base URL shown; the list says when it was last used.
    const users = await fetch(`${baseUrl}/Users`, {
      headers: { authorization: `Bearer ${scimToken}` },
    });
    expect(users.status).toBe(200);
    const listed = await client.get(`${organizationPath()}/scim-tokens`, { token });
    expect(listed.body.data).toHaveLength(1);
    const tokenId = listed.body.data[0].id as string;
    expect(listed.body.data[0].last_used_at).not.toBeNull();

    // Shown once: a fresh load lists it, used, with no token to show.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Single sign-on' }).waitFor();
    await row.waitFor();
    expect(await row.getByRole('cell').nth(1).textContent()).not.toBe('never');
    expect(await page.getByTestId('scim-token').count()).toBe(0);

    // Revoking asks first (the keyboard lands on the answer); then the token stops working.
    await row.getByRole('button', { name: 'Revoke Okta' }).click();
    const yes = row.getByRole('button', { name: 'Yes, revoke' });
    await expect.poll(() => yes.evaluate(isFocused)).toBe(true);
    await page.keyboard.press('Enter');
    await expect
      .poll(async () => (await row.getByRole('cell').nth(2).textContent())!)
      .not.toBe('no (it works)');
    expect(await row.getByRole('button', { name: 'Revoke Okta' }).count()).toBe(0);
    const revoked = await client.get(`${organizationPath()}/scim-tokens`, { token });
    expect(revoked.body.data[0].revoked_at).not.toBeNull();
    const refused = await fetch(`${baseUrl}/Users`, {
      headers: { authorization: `Bearer ${scimToken}` },
    });
    expect(refused.status).toBe(401);
    expect(await seriousViolations(page)).toEqual([]);

    // Both are in the audit log, on the token.
    await openPage('Audit log', 'Audit log');
    await page.getByLabel('Target id').fill(tokenId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('heading', { level: 2, name: 'Matching events (2)' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit events, newest first' });
    await table.getByRole('row', { name: /scim_token\.revoked/ }).waitFor();
    await table.getByRole('row', { name: /scim_token\.created/ }).waitFor();
    expect(await table.textContent()).not.toContain(scimToken);
  });

  it('in test mode, shows the test-mode log and the SCIM tokens read-only', async () => {
    await page.getByRole('radio', { name: 'Test' }).first().check();
    await page.getByText('Test mode: you are seeing test data').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.getByLabel('Action').selectOption('api_key.created');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No event matches these filters.').waitFor();

    await openPage('Single sign-on', 'Single sign-on');
    const scim = page.getByRole('region', { name: 'SCIM provisioning' });
    await scim.getByText(/see your SCIM tokens .*only change them in live mode/).waitFor();
    await scim.getByRole('row', { name: /^Okta/ }).waitFor();
    expect(await scim.getByRole('button', { name: 'Issue token' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
