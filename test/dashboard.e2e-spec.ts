import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CLIENT_IDS } from '#auth';
import { ADMIN } from './support/authorization.js';
import { isFocused, openBrowser, seriousViolations } from './support/dashboard.js';
import { TestClient } from './support/client.js';
import { startStack, type Stack } from './support/stack.js';

// The dashboard as built by `npm run build` (the pretest step), served by the real API.

let stack: Stack;
let client: TestClient;
let browser: Browser;
let page: Page;
/** Every refresh token the dashboard was given, read off the token endpoint's answers. */
const refreshTokens: string[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  ({ browser, page } = await openBrowser());
  page.on('response', (response) => {
    if (!response.url().endsWith('/oauth2/token') || response.status() !== 200) return;
    void response
      .json()
      .then((body: { refresh_token?: string }) => {
        if (body.refresh_token) refreshTokens.push(body.refresh_token);
      })
      .catch(() => undefined);
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** Static files are no API operation: plain fetch, outside the contract checks of TestClient. */
async function fetchText(path: string) {
  const response = await fetch(`${stack.baseUrl}${path}`);
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text: await response.text(),
  };
}

/** Tokens live in memory only: nothing like a JWT or a refresh token in web storage. */
async function expectNoTokenStored(): Promise<void> {
  const stored = await page.evaluate(() =>
    JSON.stringify([{ ...localStorage }, { ...sessionStorage }]),
  );
  expect(stored).not.toMatch(/eyJ/);
  for (const token of refreshTokens) expect(stored).not.toContain(token);
}

describe('the dashboard', () => {
  // Refused by the input guards (input-guards.ts), which read the dashboard's Express routes too.
  it('answers malformed percent-encoding in its paths 400 in the error envelope, not 500', async () => {
    for (const path of [
      '/dashboard/%E0%A4%A',
      '/dashboard/assets/%E0%A4%A.js',
      '/dashboard/x/%ZZ',
    ]) {
      const response = await fetch(`${stack.baseUrl}${path}`);
      expect(response.status, path).toBe(400);
      const body = (await response.json()) as { error: { code: string; details: object } };
      expect(body.error.code, path).toBe('INVALID_REQUEST');
      expect(body.error.details, path).toMatchObject({ field: 'path' });
    }
  });

  it('is served with a strict CSP, caches hashed assets and falls back to index.html', async () => {
    const index = await fetchText('/dashboard/');
    expect(index.status).toBe(200);
    const csp = index.headers['content-security-policy'] as string;
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'self'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain('unsafe-inline');
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script

    const deep = await fetchText('/dashboard/api-keys');
    expect(deep.status).toBe(200);
    expect(deep.text).toBe(index.text);

    const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(index.text)![1]!;
    const script = await fetchText(asset);
    expect(script.status).toBe(200);
    expect(script.headers['cache-control']).toContain('immutable');
    expect(script.headers['cache-control']).toContain('max-age=31536000');
  });

  it('signs the admin in, shows the overview, creates, uses, rotates and revokes a test key, signs out', async () => {
    await page.goto(`${stack.baseUrl}/dashboard/`);
    // The real sign-in page of the authorization server; no consent page for the service's own app.
    await page.getByLabel('Email address').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('heading', { name: 'Usage against plan and tier' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    await expectNoTokenStored();
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(1);
    expect(await page.getByRole('main').count()).toBe(1);
    expect(await page.getByRole('banner').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // Keyboard only: Tab reaches the main navigation, and from the API keys page the form.
    const overviewLink = page.getByRole('link', { name: 'Overview' });
    for (let presses = 0; presses < 20; presses++) {
      await page.keyboard.press('Tab');
      if (await overviewLink.evaluate(isFocused)) break;
    }
    expect(await overviewLink.evaluate(isFocused)).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByText('No active live-mode keys').waitFor();
    const nameField = page.getByLabel('Name');
    for (let presses = 0; presses < 30; presses++) {
      await page.keyboard.press('Tab');
      if (await nameField.evaluate(isFocused)) break;
    }
    expect(await nameField.evaluate(isFocused)).toBe(true);
    await page.keyboard.type('Browser test key');
    expect(await seriousViolations(page)).toEqual([]);

    // A test key made in live mode is not listed here: the page says where it is, and takes there.
    await page.getByLabel('Name').fill('Made in live mode');
    await page
      .getByRole('main')
      .getByRole('group', { name: 'Mode' })
      .getByRole('radio', { name: 'Test' })
      .check();
    await page.getByRole('button', { name: 'Create key' }).click();
    expect((await page.getByTestId('new-key').textContent())!.trim()).toMatch(/^sk_test_/);
    await page.getByText('It is listed in test mode and reaches test-mode data only').waitFor();
    expect(await page.getByRole('row', { name: /Made in live mode/ }).count()).toBe(0);
    await page.getByText('No active live-mode keys').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Test mode: signing in again with the test-mode client, no password asked (the browser is
    // signed in at the authorization server); marked on the page; the form creates test keys.
    await page.getByRole('button', { name: 'switch to test mode' }).click();
    await page.getByText('Test mode: you are seeing test data').waitFor();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Your test-mode keys' }).waitFor();
    await page.getByRole('row', { name: /Made in live mode/ }).waitFor();
    await page.getByRole('button', { name: 'Revoke Made in live mode' }).click();
    await page.getByText('No active test-mode keys').waitFor();
    await page.getByLabel('Name').fill('Browser test key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    expect(key).toMatch(/^sk_test_/);
    const used = await client.get('/v2/sessions', { apiKey: key });
    expect(used.status).toBe(200);

    await page.getByRole('row', { name: /Browser test key/ }).waitFor();

    // Rotation with an overlap: the new key is shown once, and both keys work until it ends.
    await page.getByRole('button', { name: 'Rotate Browser test key' }).click();
    await page.getByLabel('Keep the old key working for').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByText(/The old key \(sk_test_.*\) works until/).waitFor();
    const rotated = (await page.getByTestId('new-key').last().textContent())!.trim();
    expect(rotated).toMatch(/^sk_test_/);
    expect(rotated).not.toBe(key);
    for (const usable of [key, rotated]) {
      expect((await client.get('/v2/sessions', { apiKey: usable })).status).toBe(200);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Done' }).click();

    const revoke = page.getByRole('button', { name: 'Revoke Browser test key' });
    await expect.poll(() => revoke.count()).toBe(2);
    await revoke.first().click();
    await expect.poll(() => revoke.count()).toBe(1);
    await revoke.click();
    await page.getByText('No active test-mode keys').waitFor();
    for (const revoked of [key, rotated]) {
      expect((await client.get('/v2/sessions', { apiKey: revoked })).status).toBe(401);
    }
    await expectNoTokenStored();

    // Sign out revokes the refresh token.
    expect(refreshTokens.length).toBeGreaterThan(0);
    await page.getByText('Account').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    const refresh = await client.post('/oauth2/token', {
      form: {
        grant_type: 'refresh_token',
        refresh_token: refreshTokens.at(-1)!,
        client_id: DASHBOARD_CLIENT_IDS.test,
      },
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });
});
