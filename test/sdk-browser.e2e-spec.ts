import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * The SDK as a browser runs it: the built package (packages/sdk/dist) loaded
 * as ES modules in Chromium, calling the real service — a session created,
 * waited for and listed — and a webhook signed and verified with Web Crypto.
 * The page's origin is the service's, so no cross-origin rules get in the way.
 */

/** https: Web Crypto's `subtle` (verifyWebhook) exists only in secure contexts. */
const ORIGIN = 'https://sdk.test';
const DIST = new URL('../packages/sdk/dist/', import.meta.url);

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the SDK in a browser', () => {
  it('loads as ES modules, calls the service, waits, lists, and verifies webhooks', async () => {
    const org = await createOrganization(stack, await TestClient.for(stack));
    const apiKey = await org.apiKey();
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(request.url()));
    await page.route(`${ORIGIN}/**`, async (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/') {
        return route.fulfill({
          contentType: 'text/html',
          body: '<!doctype html><title>sdk</title>',
        });
      }
      if (url.pathname.startsWith('/sdk/')) {
        const file = new URL(url.pathname.slice('/sdk/'.length), DIST);
        const body = await readFile(file).catch(() => null);
        return body
          ? route.fulfill({ contentType: 'text/javascript', body })
          : route.fulfill({ status: 404, body: 'not found' });
      }
      // The API, as if served from the page's own origin (fetched here: the page is https).
      const response = await route.fetch({ url: `${stack.baseUrl}${url.pathname}${url.search}` });
      return route.fulfill({ response });
    });
    await page.goto(`${ORIGIN}/`);
    // A script text, not a function: the test runner would rewrite a function's import().
    const outcome = (await page.evaluate(`(async () => {
      const sdk = await import('${ORIGIN}/sdk/index.js');
      const client = new sdk.Client({ baseUrl: '${ORIGIN}', apiKey: ${JSON.stringify(apiKey)} });
      const created = await client.sessions.create({ type: 'remote_viewing', target: 'Browser envelope' });
      const done = await client.waitFor(created, { live: false, pollIntervalMs: 50 });
      const listed = await client.sessions.list({ per_page: 1 }).toArray(1);
      const missing = await client.sessions.get('sess_01jh2x7v4ke8rbk3a8y0v0d7qz').catch((error) => error);
      const secret = sdk.generateWebhookSecret();
      const body = JSON.stringify({ id: 'evt_1', type: 'session.completed' });
      const headers = await sdk.signWebhook(secret, 'evt_1', Math.floor(Date.now() / 1000), body);
      const verified = await sdk.verifyWebhook(secret, body, headers);
      const forged = await sdk
        .verifyWebhook(secret, body.replace('completed', 'failed'), headers)
        .then(() => 'accepted', (error) => error.name);
      return {
        status: done.status,
        listed: listed.map((s) => s.session_id),
        created: created.session_id,
        missing: { name: missing.name, code: missing.code, requestId: missing.requestId },
        verified,
        forged,
      };
    })()`)) as {
      status: string;
      listed: string[];
      created: string;
      missing: { name: string; code: string; requestId: string };
      verified: unknown;
      forged: string;
    };
    expect(outcome.status).toBe('completed');
    expect(outcome.listed).toEqual([outcome.created]);
    expect(outcome.missing).toMatchObject({ name: 'NotFoundError', code: 'NOT_FOUND' });
    expect(outcome.missing.requestId).toMatch(/^req_/);
    expect(outcome.verified).toEqual({ id: 'evt_1', type: 'session.completed' });
    expect(outcome.forged).toBe('WebhookVerificationError');
    expect(failed).toEqual([]);
    await page.close();
  });
});
