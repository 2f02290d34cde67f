import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, operatorToken } from './support/authorization.js';
import { TestClient } from './support/client.js';
import { openBrowser, seriousViolations, signIn } from './support/dashboard.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startStack, type Stack } from './support/stack.js';

// The dashboard as built by `npm run build`, served by the real API, with the real worker
// delivering to a real HTTPS receiver whose CA the service trusts through configuration.

let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let stack: Stack;
let client: TestClient;
let browser: Browser;
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
  client = await TestClient.for(stack);

  ({ browser, page } = await openBrowser({ permissions: ['clipboard-read', 'clipboard-write'] }));
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await receiver?.close();
  await ca?.cleanup();
});

/** A time as a datetime-local field takes it, in this machine's zone (the browser's too). */
function localDateTime(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

describe('the dashboard webhooks page', () => {
  it('creates an endpoint, shows its secret once, tests, retries, edits and replays', async () => {
    await signIn(page, stack.baseUrl, ADMIN, { heading: 'Overview' });

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Webhooks' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/webhooks');
    expect(await seriousViolations(page)).toEqual([]);

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
    const [request] = await receiver.waitForRequests(1);
    expect(JSON.parse(request!.rawBody)).toMatchObject({ type: 'session.completed' });

    await page.getByRole('heading', { level: 2, name: /Deliveries to/ }).waitFor();
    const delivery = page.getByTestId('delivery').first();
    await delivery.getByRole('heading', { name: /session\.completed.*succeeded/ }).waitFor();
    const attempt = delivery.getByRole('row', { name: /^1\b/ });
    expect(await attempt.textContent()).toContain('200');
    expect(await seriousViolations(page)).toEqual([]);

    // Rotating shows the new secret once, in place of the old one.
    await row.getByRole('button', { name: /Rotate secret/ }).click();
    await page.getByText('The new signing secret').waitFor();
    const rotated = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    // Retry: one more attempt of the finished delivery, with the same event id.
    await delivery.getByRole('button', { name: /Retry now/ }).click();
    const [first, retried] = await receiver.waitForRequests(2);
    expect(retried!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    await delivery.getByRole('row', { name: /^2\b/ }).waitFor();

    // Edit: the endpoint now takes session.completed only, as the API confirms.
    await row.getByRole('button', { name: /^Edit/ }).click();
    await page.getByLabel('Events', { exact: true }).last().fill('session.completed');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByRole('heading', { name: 'Edit endpoint' }).waitFor({ state: 'detached' });
    await expect
      .poll(async () => row.getByRole('cell').first().textContent())
      .toBe('session.completed');
    const token = await operatorToken(client);
    const endpoints = await client.get('/v2/webhooks', { token });
    expect(endpoints.body.data[0].events).toEqual(['session.completed']);

    // Replay: a real event, delivered once, then sent again with its own event id.
    const session = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'remote_viewing', target: 'Replayed in the dashboard' },
    });
    expect(session.status).toBe(201);
    const [, , completed] = await receiver.waitForRequests(3);
    expect(JSON.parse(completed!.rawBody)).toMatchObject({ type: 'session.completed' });
    await page.getByLabel('From').fill(localDateTime(new Date(Date.now() - 3_600_000)));
    await page.getByRole('button', { name: 'Count only' }).click();
    const replayed = page.getByRole('status').filter({ hasText: /matching events/ });
    await replayed.waitFor();
    expect(await replayed.textContent()).toBe(
      'Would send 0 of 1 matching events (1 already acknowledged).',
    );
    await page.getByLabel('Also events the endpoint already acknowledged').check();
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    await page.getByText('Sending 1 of 1 matching events.').waitFor();
    const again = (await receiver.waitForRequests(4))[3]!;
    expect(again.headers['webhook-id']).toBe(completed!.headers['webhook-id']);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
