import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from './support/authorization.js';
import { launchChromium } from './support/browser.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startStack, type Stack } from './support/stack.js';

// The dashboard as built by `npm run build`, served by the real API, with the real worker
// delivering to a real HTTPS receiver whose CA the service trusts through configuration.
const AXE = readFileSync('node_modules/axe-core/axe.min.js', 'utf8');

let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  stack = await startStack({
    env: {
      WEBHOOK_EXTRA_CA_FILE: ca.caFile,
      WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
    },
  });
  browser = await launchChromium();
  context = await browser.newContext({
    bypassCSP: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await receiver?.close();
  await ca?.cleanup();
});

async function seriousViolations(): Promise<string[]> {
  await page.evaluate(AXE);
  const results = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<any> } }).axe;
    return axe.run();
  });
  return (results.violations as { id: string; impact: string; help: string }[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help}`);
}

describe('the dashboard webhooks page', () => {
  it('creates an endpoint, shows its secret once, sends a test event and logs its delivery', async () => {
    await page.goto(`${stack.baseUrl}/dashboard/`);
    await page.getByLabel('Email address').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Webhooks' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/webhooks');
    expect(await seriousViolations()).toEqual([]);

    // An event type the API does not know: its error is shown, with the request id.
    await page.getByLabel('Endpoint URL (https)').fill(receiver.url);
    await page.getByLabel('Events').fill('no.such_event');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').getByText('Request id').waitFor();

    await page.getByLabel('Events').fill('session.completed, session.failed');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    // The test's tsconfig has no DOM: the page's navigator, typed by hand.
    const copied = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(copied).toBe(secret);

    const row = page.getByRole('row', { name: new RegExp(receiver.url) });
    await row.waitFor();
    expect(await row.textContent()).toContain('session.completed, session.failed');
    expect(await row.textContent()).toContain('enabled');

    // Keyboard: the test button is reachable and works with Enter.
    const sendTest = row.getByRole('button', { name: /Send test event/ });
    await sendTest.focus();
    await page.keyboard.press('Enter');
    await page.getByText(/Test event queued/).waitFor();
    const [request] = await receiver.waitForRequests(1, 20_000);
    expect(JSON.parse(request!.rawBody)).toMatchObject({ type: 'session.completed' });

    await page.getByRole('heading', { level: 2, name: /Deliveries to/ }).waitFor();
    const delivery = page.getByTestId('delivery').first();
    await delivery.getByRole('heading', { name: /session\.completed.*succeeded/ }).waitFor({
      timeout: 20_000,
    });
    const attempt = delivery.getByRole('row', { name: /^1\b/ });
    expect(await attempt.textContent()).toContain('200');
    expect(await seriousViolations()).toEqual([]);

    // Rotating shows the new secret once, in place of the old one.
    await row.getByRole('button', { name: /Rotate secret/ }).click();
    await page.getByText('The new signing secret').waitFor();
    const rotated = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
  });
});
