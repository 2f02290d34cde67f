import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../apps/worker/src/worker.js';
import { openBrowser, seriousViolations, signIn, tabTo } from './support/dashboard.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { addMember, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';

// The dashboard's Work pages, served by the real API, with the real worker running the
// simulated engine: an admin of an organisation of its own, in test mode.

let stack: Stack;
let client: TestClient;
let browser: Browser;
let page: Page;
let admin: TestMember;
/** A test-mode key of the admin's organisation, to seed work and check it through the API. */
let testKey: string;

/** Sessions of type dowsing made through the API: more than one page of 10. */
const SEEDED = 12;

beforeAll(async () => {
  // Slower simulated steps than the suite's default, so a `[slow]` session runs for seconds
  // (10 steps of 10 × 50 ms) and its progress can be watched moving.
  stack = await startStack({ env: { SIMULATED_STEP_MS: '50' } });
  client = await TestClient.for(stack);
  const organization = await createOrganization(stack, client);
  admin = await addMember(stack, organization, ['admin'], 'Work Admin');
  testKey = await organization.apiKey(undefined, 'test');
  for (let index = 0; index < SEEDED; index++) {
    const created = await client.post('/v2/sessions/create', {
      apiKey: testKey,
      json: { type: 'dowsing', target: `Seeded target ${index}` },
    });
    expect(created.status).toBe(201);
  }
  ({ browser, page } = await openBrowser());
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const main = () => page.getByRole('main');
const nav = (name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

describe('the dashboard Work pages', () => {
  it('starts a session from the keyboard and watches it complete live, in test mode', async () => {
    await signIn(page, stack.baseUrl, admin, { path: '/sessions', heading: 'Sessions' });
    await page.getByRole('radio', { name: 'Test' }).first().check();
    await page.getByText('Test mode: you are seeing test data').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    const list = page.getByRole('region', { name: 'Your sessions' });
    await list
      .getByRole('link', { name: /^sess_/ })
      .first()
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // An error of the API: shown with its request id, and at the field it names.
    const form = page.getByRole('region', { name: 'Start a session' });
    await form.getByRole('button', { name: 'Start session' }).click();
    await form.getByRole('alert').getByText('Request id').waitFor();
    await expect
      .poll(() => form.getByLabel('Target', { exact: true }).getAttribute('aria-invalid'))
      .toBe('true');
    expect(await seriousViolations(page)).toEqual([]);

    // Keyboard only: Tab to the target, type it, Enter submits the form.
    expect(await tabTo(page, form.getByLabel('Target', { exact: true }))).toBe(true);
    await page.keyboard.type('Envelope 4711 [slow]');
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: /^Session sess_/ }).waitFor();
    const sessionId = /sess_\w+/.exec(new URL(page.url()).pathname)![0];
    // A mark in the page's memory: still there at the end means the page never reloaded.
    await page.evaluate(() => ((globalThis as Record<string, unknown>).workMark = 'unreloaded'));

    // Live: the progress moves over the WebSocket and ends at 100, then the results appear.
    const progress = page.getByRole('progressbar', { name: 'Session progress' });
    const seen = new Set<number>();
    await expect
      .poll(
        async () => {
          seen.add(Number(await progress.getAttribute('value')));
          return Math.max(...seen);
        },
        { interval: 100 },
      )
      .toBe(100);
    expect([...seen].some((value) => value > 0 && value < 100)).toBe(true);
    // The page subscribed to the work over the service's WebSocket.
    expect(sockets.some((url) => new URL(url).pathname === '/v1/sessions/ws')).toBe(true);
    const results = page.getByTestId('session-results');
    await results.getByRole('heading', { name: 'Results' }).waitFor();
    await page.getByRole('status').getByText('Completed').first().waitFor();
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>).workMark)).toBe(
      'unreloaded',
    );

    // What the page shows is what the API says.
    const read = await client.get(`/v2/sessions/${sessionId}`, { apiKey: testKey });
    expect(read.body.status).toBe('completed');
    const [low, high] = read.body.results.statistical_validation.confidence_interval as number[];
    const text = await results.textContent();
    expect(text).toContain(read.body.results.descriptors[0]);
    expect(text).toContain(`${(low! * 100).toFixed(1)} % – ${(high! * 100).toFixed(1)} %`);
    // Its sketches, fetched with the token and shown (the image really decoded).
    const sketches = read.body.results.sketches as { description: string }[];
    expect(sketches.length).toBeGreaterThan(0);
    const sketch = results.getByRole('img', { name: sketches[0]!.description }).first();
    await sketch.waitFor();
    await expect
      .poll(() => sketch.evaluate((image) => (image as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);

    // The list, filtered to remote viewing: this session, none of the seeded dowsing ones.
    await page.getByRole('link', { name: '← All sessions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    const filters = page.getByRole('form', { name: 'Filter sessions' });
    await filters.getByLabel('Type').selectOption('remote_viewing');
    await filters.getByLabel('Status').selectOption('completed');
    const row = list.getByRole('row', { name: new RegExp(sessionId) });
    // The previous page's rows stay on screen until the filtered list arrives, so wait for it.
    await expect.poll(() => row.textContent()).toContain('completed');
    await expect.poll(() => list.getByRole('link', { name: /^sess_/ }).count()).toBe(1);

    // The filters live in the address: Back from the session finds them still applied.
    expect(new URL(page.url()).searchParams.get('type')).toBe('remote_viewing');
    await row.getByRole('link', { name: sessionId }).click();
    await page.getByRole('heading', { level: 1, name: /^Session sess_/ }).waitFor();
    await page.goBack();
    await row.waitFor();
    expect(await filters.getByLabel('Type').inputValue()).toBe('remote_viewing');
    expect(await filters.getByLabel('Status').inputValue()).toBe('completed');
  });

  it('says "in progress" while the bar moves on a page opened while the session waited', async () => {
    // No worker for a moment: the page first reads the session as `initiated`.
    await stack.worker!.close();
    stack.worker = null;
    const created = await client.post('/v1/sessions', {
      apiKey: testKey,
      json: { type: 'remote_viewing', target: 'Waiting envelope [slow]' },
    });
    expect(created.status).toBe(201);
    const sessionId = created.body.session_id as string;
    await nav('Sessions').click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    await page.getByRole('link', { name: sessionId }).click();
    await page.getByRole('heading', { level: 1, name: `Session ${sessionId}` }).waitFor();
    const status = page.locator('.work-status').first();
    await expect.poll(() => status.textContent()).toBe('initiated');

    stack.worker = await createWorker(stack.settings);
    const progress = page.getByRole('progressbar', { name: 'Session progress' });
    const whileMoving = new Set<string>();
    await expect
      .poll(
        async () => {
          const value = Number(await progress.getAttribute('value'));
          if (value > 0 && value < 100) whileMoving.add((await status.textContent()) ?? '');
          return value;
        },
        { interval: 50 },
      )
      .toBe(100);
    expect([...whileMoving]).toContain('in progress');
    await page.getByRole('status').getByText('Completed').first().waitFor();
  });

  it('pages through a filtered list longer than one page', async () => {
    await nav('Sessions').click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    const list = page.getByRole('region', { name: 'Your sessions' });
    const filters = page.getByRole('form', { name: 'Filter sessions' });
    await filters.getByLabel('Type').selectOption('dowsing');
    await filters.getByLabel('Per page').selectOption('10');
    const pager = list.getByRole('navigation', { name: 'Sessions pages' });
    await pager.getByText(`Page 1, ${SEEDED} in all`).waitFor();
    const links = list.getByRole('link', { name: /^sess_/ });
    await expect.poll(() => links.count()).toBe(10);
    const firstPage = await links.allTextContents();

    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText(`Page 2, ${SEEDED} in all`).waitFor();
    await expect.poll(() => links.count()).toBe(SEEDED - 10);
    const secondPage = await links.allTextContents();
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);

    await pager.getByRole('button', { name: 'Previous page' }).click();
    await pager.getByText(`Page 1, ${SEEDED} in all`).waitFor();
    await expect.poll(() => links.allTextContents()).toEqual(firstPage);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('submits an analysis and sees its results', async () => {
    await nav('Analyses').click();
    await page.getByRole('heading', { level: 1, name: 'Analyses' }).waitFor();
    await main().getByText('No analyses yet in this mode').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const form = page.getByRole('region', { name: 'Analyse a target' });
    await form.getByLabel('Target type').selectOption('object');
    await form.getByLabel('Description (optional)').fill('The brass key');
    await form.getByLabel('Depth').selectOption('quick_scan');
    await form.getByRole('button', { name: 'Submit analysis' }).click();
    await page.getByRole('heading', { level: 1, name: /^Analysis anal_/ }).waitFor();
    const analysisId = /anal_\w+/.exec(new URL(page.url()).pathname)![0];

    const results = page.getByTestId('analysis-results');
    await results.getByRole('heading', { name: 'Key findings' }).waitFor();
    expect(
      await page.getByRole('progressbar', { name: 'Analysis progress' }).getAttribute('value'),
    ).toBe('100');
    const read = await client.get(`/v1/analysis/${analysisId}/results`, { apiKey: testKey });
    expect(read.body.status).toBe('completed');
    expect(await results.textContent()).toContain(read.body.results.summary);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: '← All analyses' }).click();
    const list = page.getByRole('region', { name: 'Your analyses' });
    await list.getByRole('row', { name: new RegExp(analysisId) }).waitFor();
    expect(await list.getByRole('row', { name: new RegExp(analysisId) }).textContent()).toContain(
      'The brass key',
    );
  });

  it('asks a dowsing question, sees the answer, and deletes it after confirming', async () => {
    await nav('Dowsing queries').click();
    await page.getByRole('heading', { level: 1, name: 'Dowsing queries' }).waitFor();
    await main().getByText('No dowsing queries yet in this mode').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const form = page.getByRole('region', { name: 'Ask a question' });
    await form.getByLabel('Kind of question').selectOption('yes_no');
    await form.getByLabel('Question', { exact: true }).fill('Is the key in the drawer?');
    await form.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dowsing query' }).waitFor();
    const queryId = /dowse_\w+/.exec(new URL(page.url()).pathname)![0];
    const answer = page.getByTestId('dowsing-answer');
    await answer.getByRole('heading', { name: 'Answer' }).waitFor();
    const read = await client.get(`/v2/dowsing/queries/${queryId}`, { apiKey: testKey });
    expect(read.body.status).toBe('completed');
    const text = await answer.textContent();
    expect(text).toContain(read.body.result.answer);
    const [low, high] = read.body.result.confidence_interval as number[];
    expect(text).toContain(`${(low! * 100).toFixed(1)} % – ${(high! * 100).toFixed(1)} %`);
    expect(await seriousViolations(page)).toEqual([]);

    // Deleting asks first; confirmed, the query is gone from the list and the API.
    await page.getByRole('button', { name: 'Delete query' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dowsing queries' }).waitFor();
    await main().getByText('No dowsing queries yet in this mode').waitFor();
    expect((await client.get(`/v2/dowsing/queries/${queryId}`, { apiKey: testKey })).status).toBe(
      404,
    );
  });
});
