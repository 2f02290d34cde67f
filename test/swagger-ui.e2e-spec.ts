import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { documentedExamples, operationsOf } from './support/openapi-document.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS } from './support/wait.js';

/**
 * Swagger UI at /docs, in a real browser: authorised with a client-credentials
 * access token (the `bearer` scheme) and, in a fresh browser, with an API key
 * (the `api_key` scheme, header X-API-Key), "Try it out" → "Execute" on
 * POST /v1/sessions with the example body as Swagger UI fills it, and on
 * GET /v2/sessions; the page shows 201 and 200.
 *
 * That every documented request example is one the server accepts as it
 * stands (so "Try it out" works without editing, for every operation with a
 * body) is test/openapi-examples.e2e-spec.ts; this file proves the page itself.
 */

/** Swagger UI renders from a 5 MB bundle and a large document: generous, never fixed, waits. */
const UI_TIMEOUT = DEADLINE_MS;

let stack: Stack;
let client: TestClient;
let browser: Browser;
let org: TestOrganization;
let openapi: any;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  openapi = await (await fetch(`${stack.baseUrl}/docs-json`)).json();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** The browser's globals the page functions below use (this project compiles without the DOM library). */
interface BrowserGlobals {
  innerHeight: number;
  scrollTo(x: number, y: number): void;
  scrollBy(x: number, y: number): void;
  document: { querySelector(selector: string): { scrollIntoView(options: object): void } | null };
}

interface OpenedDocs {
  context: BrowserContext;
  page: Page;
  /** Every URL the page asked for that is not the API's own (must stay empty). */
  external: string[];
  /** What the page's Content-Security-Policy refused (must stay empty: the policy fits the UI). */
  violations: string[];
}

/** A fresh browser profile (no persisted authorisation) on /docs, rendered. */
async function openDocs(): Promise<OpenedDocs> {
  const context = await browser.newContext();
  const external: string[] = [];
  const origin = new URL(stack.baseUrl).origin;
  context.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('blob:')) return;
    if (new URL(url).origin !== origin) external.push(url);
  });
  // Nothing outside this machine can answer anyway: refuse at once rather than time out.
  await context.route(
    (url) => url.origin !== origin && url.protocol !== 'data:' && url.protocol !== 'blob:',
    (route) => route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto(`${stack.baseUrl}/docs`);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  try {
    await page
      .locator('.swagger-ui .info .title')
      .filter({ hasText: 'Session and Analysis Service' })
      .waitFor({ timeout: UI_TIMEOUT });
  } catch (error) {
    // Not rendered: say first whether it was for want of something from outside.
    expect(external, 'Swagger UI needs assets from outside the API').toEqual([]);
    throw error;
  }
  return { context, page, external, violations };
}

/**
 * Authorize → the named scheme's form → the value → its "Authorize" (labelled
 * "Apply credentials") → Close.
 */
async function authorise(page: Page, scheme: string, value: string): Promise<void> {
  await page.locator('.auth-wrapper button.authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  await dialog.waitFor({ timeout: UI_TIMEOUT });
  // Each scheme is a form headed by its name: "bearer (http, Bearer)", "api_key (apiKey)".
  const form = dialog
    .locator('.auth-container form')
    .filter({ has: page.locator('h4', { hasText: new RegExp(`^\\s*${scheme}\\s*\\(`) }) });
  await expect.poll(() => form.count(), { timeout: UI_TIMEOUT }).toBe(1);
  await form.locator('input').fill(value);
  await form.getByRole('button', { name: 'Apply credentials' }).click();
  // Applied: the form says so, and offers Logout in place of its field.
  await form.locator('h6', { hasText: 'Authorized' }).waitFor({ timeout: UI_TIMEOUT });
  await form.getByRole('button', { name: 'Remove authorization' }).waitFor({ timeout: UI_TIMEOUT });
  expect(await form.locator('input').count()).toBe(0);
  await form.locator('.auth-btn-wrapper .btn-done').click();
  await dialog.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
}

/**
 * Authorize → the oauth2 scheme's client-credentials form → the client's id
 * and secret, every scope → "Authorize": Swagger UI fetches the token from
 * the token endpoint itself → Close.
 */
async function authoriseClient(page: Page, clientId: string, clientSecret: string): Promise<void> {
  await page.locator('.auth-wrapper button.authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  await dialog.waitFor({ timeout: UI_TIMEOUT });
  const form = dialog
    .locator('.auth-container')
    .filter({ has: page.locator('h4', { hasText: /^\s*oauth2\s*\(/ }) });
  await expect.poll(() => form.count(), { timeout: UI_TIMEOUT }).toBe(1);
  await form.locator('input[data-name="clientId"]').fill(clientId);
  await form.locator('input[data-name="clientSecret"]').fill(clientSecret);
  await form.getByText('select all').click();
  await form.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
  await form.locator('h6', { hasText: 'Authorized' }).waitFor({ timeout: UI_TIMEOUT });
  await form.locator('.auth-btn-wrapper .btn-done').click();
  await dialog.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
}

/**
 * The operation block of `METHOD path`, found by its method and path (its id
 * varies), scrolled to. Swagger UI renders only the operations near the
 * viewport (a virtual list), so this scrolls down, a step per frame, until
 * the block is in the page. The path's text has zero-width spaces before each
 * slash, for wrapping; its `data-path` holds the template as written.
 */
async function operation(page: Page, method: string, path: string): Promise<Locator> {
  const opblock = `.opblock.opblock-${method.toLowerCase()}`;
  const pathText = `.opblock-summary-path[data-path="${path}"]`;
  await page.evaluate(() => (globalThis as unknown as BrowserGlobals).scrollTo(0, 0));
  await page.waitForFunction(
    (selector) => {
      const window = globalThis as unknown as BrowserGlobals;
      const found = window.document.querySelector(selector);
      if (found) {
        found.scrollIntoView({ block: 'center' });
        return true;
      }
      window.scrollBy(0, window.innerHeight / 2);
      return false;
    },
    `${opblock} ${pathText}`,
    { polling: 'raf', timeout: UI_TIMEOUT },
  );
  const block = page.locator(opblock).filter({ has: page.locator(pathText) });
  await expect.poll(() => block.count(), { timeout: UI_TIMEOUT }).toBe(1);
  return block;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

interface Executed {
  /** The status code of the live response, as the page shows it. */
  status: number;
  /** The response body, as the page shows it. */
  body: string;
  /** The curl command Swagger UI shows for the request it sent. */
  curl: string;
  /** The request body as Swagger UI filled it (untouched), if the operation has one. */
  requestBody: string | null;
}

/** Expand the operation, "Try it out", "Execute", and read what the page shows. */
async function tryItOut(page: Page, method: string, path: string): Promise<Executed> {
  const block = await operation(page, method, path);
  await block.locator('.opblock-summary-control').click();
  await block.getByRole('button', { name: 'Try it out' }).click();
  const textarea = block.locator('.body-param textarea');
  const requestBody = (await textarea.count()) > 0 ? await textarea.inputValue() : null;
  await block.getByRole('button', { name: 'Execute' }).click();
  const status = block.locator('.live-responses-table .response .response-col_status');
  await status.waitFor({ timeout: UI_TIMEOUT });
  const body = block.locator('.live-responses-table .response .response-col_description pre');
  return {
    status: Number((await status.innerText()).trim()),
    body: (await body.first().innerText()).trim(),
    curl: (await block.locator('.curl-command .curl').innerText()).trim(),
    requestBody,
  };
}

/**
 * POST /v1/sessions and GET /v2/sessions through the page; the page shows 201
 * then 200, and each request carried the credential given (`header`, as curl
 * shows it) and not the other scheme's header (`absent`).
 */
async function runSessions(page: Page, header: string | RegExp, absent: string): Promise<void> {
  const credentialHeader =
    typeof header === 'string' ? new RegExp(`-H '${escape(header)}'`) : header;
  const created = await tryItOut(page, 'POST', '/v1/sessions');
  expect(created.status, created.body).toBe(201);
  expect(created.curl).toMatch(credentialHeader);
  expect(created.curl).not.toContain(absent);
  expect(created.requestBody, 'Swagger UI filled in no request body').not.toBeNull();
  // The body Swagger UI filled in and sent is the documented example, not edited.
  const createOperation = operationsOf(openapi).find(
    (candidate) => candidate.method === 'POST' && candidate.path === '/v1/sessions',
  )!;
  const examples = documentedExamples(openapi, createOperation).map(({ value }) => value);
  expect(examples).toContainEqual(JSON.parse(created.requestBody!));
  const session = JSON.parse(created.body);
  expect(session.session_id).toMatch(/^sess_/);

  const listed = await tryItOut(page, 'GET', '/v2/sessions');
  expect(listed.status, listed.body).toBe(200);
  expect(listed.curl).toMatch(credentialHeader);
  expect(listed.curl).not.toContain(absent);
  // The list holds the session just made: optional filters carry no example, so "Try it out"
  // sends none of them (their examples together would match nothing).
  const ids = (JSON.parse(listed.body).data as { session_id: string }[]).map((s) => s.session_id);
  expect(ids, listed.body).toContain(session.session_id);
}

describe('Swagger UI at /docs, in a real browser', () => {
  it('loads from the API alone, with no request leaving it', async () => {
    const { context, page, external, violations } = await openDocs();
    // The UI's assets come from the API (swagger-ui-dist, served locally).
    const scripts = await page
      .locator('script[src]')
      .evaluateAll((elements) =>
        elements.map((element) => (element as unknown as { src: string }).src),
      );
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) expect(new URL(src).origin).toBe(new URL(stack.baseUrl).origin);
    // The three security schemes are offered.
    await page.locator('.auth-wrapper button.authorize').click();
    await expect
      .poll(() => page.locator('.dialog-ux .auth-container h4').allInnerTexts(), {
        timeout: UI_TIMEOUT,
      })
      .toEqual([
        expect.stringMatching(/^bearer\b/),
        expect.stringMatching(/^oauth2\b/),
        expect.stringMatching(/^api_key\b/),
      ]);
    expect(external, 'Swagger UI asked for something outside the API').toEqual([]);
    expect(violations, 'the Content-Security-Policy refused part of Swagger UI').toEqual([]);
    await context.close();
  });

  it('runs "Try it out" authorised with a client-credentials access token (bearer)', async () => {
    const { context, page, external, violations } = await openDocs();
    const token = await org.token();
    await authorise(page, 'bearer', token);
    await runSessions(page, `Authorization: Bearer ${token}`, 'X-API-Key');
    expect(external, 'Swagger UI asked for something outside the API').toEqual([]);
    expect(violations, 'the Content-Security-Policy refused part of Swagger UI').toEqual([]);
    await context.close();
  });

  it('gets a token in the Authorize dialog itself (oauth2, client credentials) and runs "Try it out" with it', async () => {
    const { context, page, external, violations } = await openDocs();
    const tokenRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/oauth2/token') tokenRequests.push(request.method());
    });
    await authoriseClient(page, org.clientId, org.clientSecret);
    expect(tokenRequests).toEqual(['POST']);
    await runSessions(page, /-H 'Authorization: Bearer eyJ[\w-]+\.[\w-]+\.[\w-]+'/, 'X-API-Key');
    expect(external, 'Swagger UI asked for something outside the API').toEqual([]);
    expect(violations, 'the Content-Security-Policy refused part of Swagger UI').toEqual([]);
    await context.close();
  });

  it('runs "Try it out" authorised with an API key (api_key, X-API-Key)', async () => {
    const { context, page, external, violations } = await openDocs();
    const apiKey = await org.apiKey();
    await authorise(page, 'api_key', apiKey);
    await runSessions(page, `X-API-Key: ${apiKey}`, 'Authorization');
    expect(external, 'Swagger UI asked for something outside the API').toEqual([]);
    expect(violations, 'the Content-Security-Policy refused part of Swagger UI').toEqual([]);
    await context.close();
  });

  it('offers the live and the sandbox server, and "Try it out" reaches the one chosen', async () => {
    const { context, page, external, violations } = await openDocs();
    const servers = page.locator('.servers select');
    await servers.waitFor({ timeout: UI_TIMEOUT });
    expect(
      await servers
        .locator('option')
        .evaluateAll((options) =>
          options.map((option) => (option as unknown as { value: string }).value),
        ),
    ).toEqual([stack.baseUrl, `${stack.baseUrl}/sandbox`]);
    await servers.selectOption(`${stack.baseUrl}/sandbox`);
    await authorise(page, 'api_key', await org.apiKey(undefined, 'test'));
    const listed = await tryItOut(page, 'GET', '/v2/sessions');
    expect(listed.status, listed.body).toBe(200);
    expect(listed.curl).toContain(`${stack.baseUrl}/sandbox/v2/sessions`);
    expect(external, 'Swagger UI asked for something outside the API').toEqual([]);
    expect(violations, 'the Content-Security-Policy refused part of Swagger UI').toEqual([]);
    await context.close();
  });
});

describe('the documentation pages', () => {
  it('send a Content-Security-Policy, refuse framing and sniffing: Swagger UI, its script, the error reference', async () => {
    for (const path of ['/docs', '/docs/swagger-ui-init.js', '/docs/errors']) {
      const response = await fetch(`${stack.baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(policy, path).toContain("default-src 'none'");
      // No inline script is allowed anywhere: Swagger UI starts from a served file.
      expect(policy, path).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    const page = await (await fetch(`${stack.baseUrl}/docs`)).text();
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });
});
