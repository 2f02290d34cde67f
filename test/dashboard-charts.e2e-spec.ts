import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '#common';
import { Sql } from '#database';
import { launchChromium } from './support/browser.js';
import { TestClient } from './support/client.js';
import { seriousViolations, signIn } from './support/dashboard.js';
import { backdateWork, seedDeliveries } from './support/dashboard-seed.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS, waitFor } from './support/wait.js';

// The dashboard's charts, as built by `npm run build` and served by the real API under its
// real CSP (no bypass here: Vega must draw without 'unsafe-eval'), over figures seeded
// through the API (work, history, a webhook) and deliveries seeded in the past.

let stack: Stack;
let client: TestClient;
let browser: Browser;
let organization: TestOrganization;
let admin: TestMember;
let token: string;
let sessionId: string;
let queryId: string;

const LONDON = { latitude: 51.5074, longitude: -0.1278 };

beforeAll(async () => {
  stack = await startStack({ env: { WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  client = await TestClient.for(stack);
  // A plan and tier with limits on every window, so each shows against its limit.
  organization = await createOrganization(stack, client, 'live', 'pro', { tier: 'enterprise' });
  admin = await addMember(stack, organization, ['admin'], 'Charts Admin');
  token = await organization.token();
  const sql = stack.api.get(Sql);

  // Work: three sessions (two moved back 2 and 5 days) and a location-finding query.
  const sessions: string[] = [];
  for (const target of ['Chart envelope 1', 'Chart envelope 2', 'Chart envelope 3']) {
    const created = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'remote_viewing', target },
    });
    expect(created.status, created.text).toBe(201);
    sessions.push(created.body.session_id as string);
  }
  for (const id of sessions) {
    await waitFor(
      async () =>
        (await client.get(`/v2/sessions/${id}`, { token })).body.status === 'completed' || null,
      DEADLINE_MS,
      250,
    );
  }
  sessionId = sessions[0]!;
  await backdateWork(sql, 'sessions', parsePublicId('session', sessions[1]!)!, 2);
  await backdateWork(sql, 'sessions', parsePublicId('session', sessions[2]!)!, 5);
  const query = await client.post('/v1/dowsing/location-finding', {
    token,
    json: { area: { ...LONDON, radius_meters: 300 }, sought: 'the ring', max_candidates: 2 },
  });
  expect(query.status, query.text).toBe(201);
  queryId = query.body.query_id as string;

  // Verified cases of yesterday: remote viewing 3 hits of 4, dowsing 1 of 2.
  const yesterday = new Date(Date.now() - 86_400_000).toISOString();
  const cases = [
    ['remote_viewing', 'hit'],
    ['remote_viewing', 'hit'],
    ['remote_viewing', 'hit'],
    ['remote_viewing', 'miss'],
    ['dowsing', 'hit'],
    ['dowsing', 'miss'],
  ].map(([type, verdict], index) => ({
    external_id: `chart-${index}`,
    type,
    date: yesterday,
    target: `Chart case ${index}`,
    verdict,
    verified_by: 'Chart judge',
    verified_at: yesterday,
  }));
  const imported = await client.post('/v2/history/import', {
    token,
    raw: {
      body: cases.map((row) => JSON.stringify(row)).join('\n'),
      contentType: 'application/x-ndjson',
    },
  });
  expect(imported.status, imported.text).toBeLessThan(300);

  // A webhook no event of this test is sent to, with deliveries of the last day seeded.
  const webhook = await client.post('/v1/webhooks', {
    token,
    json: { url: 'https://127.0.0.1:9/hook', events: ['analysis.completed'] },
  });
  expect(webhook.status, webhook.text).toBe(201);
  await seedDeliveries(
    sql,
    organization.organizationId,
    parsePublicId('webhook', webhook.body.webhook_id as string)!,
    [
      { hoursAgo: 0.5, state: 'succeeded' },
      { hoursAgo: 0.5, state: 'failed' },
      { hoursAgo: 2.5, state: 'succeeded' },
      { hoursAgo: 2.5, state: 'succeeded' },
      { hoursAgo: 2.5, state: 'pending' },
      { hoursAgo: 9.5, state: 'failed' },
    ],
  );

  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** What the page reported breaking its CSP: violation events and console errors. */
interface CspWatch {
  page: Page;
  context: BrowserContext;
  problems: () => Promise<string[]>;
  /** Paths of the dashboard's scripts the page fetched. */
  scripts: string[];
}

/**
 * A page under the dashboard's own CSP (no bypass), recording every
 * securitypolicyviolation event and console error, and the scripts fetched.
 */
async function strictPage(
  options: { viewport?: { width: number; height: number }; reducedMotion?: 'reduce' } = {},
): Promise<CspWatch> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    reducedMotion: options.reducedMotion ?? 'no-preference',
  });
  // Run in the page before its own scripts (the tests' tsconfig has no DOM: typed by hand).
  await context.addInitScript(() => {
    const page = globalThis as unknown as {
      cspViolations: string[];
      addEventListener(
        type: string,
        listener: (event: { violatedDirective: string; blockedURI: string }) => void,
      ): void;
    };
    page.cspViolations = [];
    page.addEventListener('securitypolicyviolation', (event) => {
      page.cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    // Chromium asks for /favicon.ico, which the service does not serve: not the dashboard's.
    if (message.type() !== 'error' || message.location().url.endsWith('/favicon.ico')) return;
    errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  const scripts: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/dashboard/assets/') && path.endsWith('.js')) scripts.push(path);
  });
  const problems = async () => [
    ...errors,
    ...(((await page.evaluate(() => (globalThis as Record<string, unknown>).cspViolations)) as
      string[] | undefined) ?? []),
  ];
  return { page, context, problems, scripts };
}

/** The API's dashboard figures for the admin's organisation (the page reads the same). */
async function dashboard() {
  const response = await client.get('/v2/analytics/dashboard', { token });
  expect(response.status).toBe(200);
  return response.body;
}

/** A chart's figure, once drawn: its image (the accessible one) and Vega's SVG in it. */
async function drawn(page: Page, testId: string) {
  const figure = page.getByTestId(testId);
  await figure.locator('[data-chart-state="drawn"], [data-chart-state="failed"]').waitFor();
  // A chart that failed says why (under the CSP, Vega's `new Function` would be the cause).
  if ((await figure.locator('[data-chart-state="failed"]').count()) > 0) {
    throw new Error(`${testId}: ${await figure.getByTestId('chart-failure').textContent()}`);
  }
  const image = figure.locator('.chart-view[role="img"]');
  return { figure, image, svg: image.locator('svg').first() };
}

/** The marks Vega drew for a named part of a chart (`name` in the spec: `<name>_marks`). */
const marks = (svg: Locator, name: string) => svg.locator(`g.${name}_marks > *`);

/** A table's body rows as arrays of cell texts. */
async function rows(table: Locator): Promise<string[][]> {
  return table
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from((tr as unknown as { cells: { textContent: string }[] }).cells).map((cell) =>
          cell.textContent.trim(),
        ),
      ),
    );
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

describe('the dashboard charts', () => {
  it('draw the Overview figures under the CSP, loaded with the page, with the same figures in words and tables', async () => {
    const { page, context, problems, scripts } = await strictPage();
    // Signed in on a page without charts: no chart code fetched.
    await signIn(page, stack.baseUrl, admin, { path: '/api-keys', heading: 'API keys' });
    expect(scripts.some((path) => path.includes('vega'))).toBe(false);

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Overview' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const usage = await drawn(page, 'usage-chart');
    const work = await drawn(page, 'work-chart');
    const rates = await drawn(page, 'rates-chart');
    const webhooks = await drawn(page, 'webhook-chart');
    expect(scripts.some((path) => /\/vega-view-[\w-]+\.js$/.test(path))).toBe(true);
    const data = await dashboard();

    // Usage: a bar per limited window and running work, named with its figures; the table
    // beside it holds the same used and limit.
    expect(await marks(usage.svg, 'usage').count()).toBe(5);
    const usageLabel = (await usage.image.getAttribute('aria-label'))!;
    for (const window of data.usage.requests as { window: string; limit: number }[]) {
      expect(usageLabel).toMatch(
        new RegExp(`Requests this ${window.window}: \\d+ of ${window.limit}`),
      );
    }
    expect(usageLabel).toContain(`Sessions running: 0 of ${data.usage.concurrent.limit}`);
    const usageTable = await rows(
      page.getByRole('region', { name: 'Usage against plan and tier' }).locator('table'),
    );
    for (const [heading, used, limit] of usageTable.filter(([heading]) =>
      heading!.startsWith('Requests per'),
    )) {
      const window = heading!.replace('Requests per ', '');
      expect(usageLabel).toContain(`Requests this ${window}: `);
      expect(usageLabel).toContain(` of ${limit}`);
      expect(Number(used)).toBeGreaterThan(0);
    }

    // Work per day: a bar per day, kind and status with work, as the table behind the
    // disclosure lists them, summing to the 30 days' counts of the table beside it.
    const perDay = data.work_per_day as { kind: string; status: string; count: number }[];
    expect(perDay.map((day) => day.kind).sort()).toEqual([
      'dowsing_query',
      'session',
      'session',
      'session',
    ]);
    expect(await marks(work.svg, 'work').count()).toBe(perDay.length);
    await work.figure.getByText('Show as table').click();
    const workRows = await rows(work.figure.locator('table'));
    expect(workRows).toHaveLength(perDay.length);
    expect(workRows.map((row) => Number(row[3]))).toEqual(perDay.map((day) => day.count));
    expect(workRows.filter((row) => row[1] === 'Sessions').map((row) => row[2])).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    const workLabel = (await work.image.getAttribute('aria-label'))!;
    expect(workLabel).toContain('sessions 3');
    expect(workLabel).toContain('dowsing queries 1');

    // Hit rates: a dot, an interval and a chance mark per type with verified cases; the
    // words and the table beside the chart give the same rates and intervals.
    const rated = (
      data.success_rates as { type: string; hit_rate: Record<string, number> | null }[]
    ).filter((group) => group.hit_rate !== null);
    expect(rated.map((group) => group.type).sort()).toEqual(['dowsing', 'remote_viewing']);
    expect(await marks(rates.svg, 'rate').count()).toBe(2);
    expect(await marks(rates.svg, 'interval').count()).toBe(2);
    expect(await marks(rates.svg, 'chance').count()).toBe(2);
    const ratesLabel = (await rates.image.getAttribute('aria-label'))!;
    const ratesTable = await rows(
      page.getByRole('region', { name: 'Success rates, last 30 days' }).locator('table'),
    );
    for (const group of rated) {
      const rate = group.hit_rate!;
      const words = `${group.type.replace('_', ' ')} ${percent(rate.value!)} (95 % interval ${percent(rate.ci_low!)} – ${percent(rate.ci_high!)}; chance ${percent(rate.baseline!)})`;
      expect(ratesLabel).toContain(words);
      const row = ratesTable.find(([type]) => type === group.type.replace('_', ' '))!;
      expect(row[2]).toContain(percent(rate.value!));
      expect(row[3]).toBe(`${percent(rate.ci_low!)} – ${percent(rate.ci_high!)}`);
      expect(row[4]).toBe(percent(rate.baseline!));
    }
    expect(ratesLabel).toContain('remote viewing 75.0 %');

    // Webhook deliveries per hour: a bar per hour and state with deliveries, as seeded.
    const hours = data.webhooks.per_hour as Record<string, number | string>[];
    const states = ['succeeded', 'failed', 'pending'];
    const busy = hours.filter((hour) => states.some((state) => (hour[state] as number) > 0));
    expect(busy.map((hour) => states.map((state) => hour[state]))).toEqual([
      [0, 1, 0],
      [2, 0, 1],
      [1, 1, 0],
    ]);
    expect(await marks(webhooks.svg, 'deliveries').count()).toBe(5);
    await webhooks.figure.getByText('Show as table').click();
    expect((await rows(webhooks.figure.locator('table'))).map((row) => row.slice(1))).toEqual([
      ['0', '1', '0'],
      ['2', '0', '1'],
      ['1', '1', '0'],
    ]);
    expect(await webhooks.image.getAttribute('aria-label')).toContain(
      '3 succeeded, 2 failed, 1 pending in all',
    );

    expect(await problems()).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('fit a 390 px wide screen and do not animate when motion is unwelcome', async () => {
    const { page, context, problems } = await strictPage({
      viewport: { width: 390, height: 844 },
      reducedMotion: 'reduce',
    });
    await signIn(page, stack.baseUrl, admin, { heading: 'Overview' });
    for (const testId of ['usage-chart', 'work-chart', 'rates-chart', 'webhook-chart']) {
      const { svg } = await drawn(page, testId);
      const box = (await svg.boundingBox())!;
      expect(box.x, testId).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, testId).toBeLessThanOrEqual(390);
      expect(box.width, testId).toBeGreaterThan(200);
      expect(await svg.evaluate(animationName), testId).toBe('none');
    }
    expect(await problems()).toEqual([]);
    await context.close();
  });

  it('mark a session’s coordinates and a dowsing answer’s places on a map', async () => {
    const { page, context, problems } = await strictPage();
    await signIn(page, stack.baseUrl, admin, {
      path: `/sessions/${sessionId}`,
      heading: /^Session sess_/,
    });
    const session = (await client.get(`/v2/sessions/${sessionId}`, { token })).body;
    const { latitude, longitude } = session.results.coordinates as typeof LONDON;
    const sessionMap = page.getByTestId('session-results').getByTestId('place-map');
    const sessionImage = sessionMap.getByRole('img');
    await sessionImage.waitFor();
    expect(await sessionImage.getAttribute('aria-label')).toBe(
      `Map of the coordinates at ${degrees(latitude, longitude)}.`,
    );
    expect(await sessionMap.locator('.place-map-mark').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Dowsing queries' })
      .click();
    // The list links each query by its question (the location-finding one's is fixed).
    await page.getByRole('link', { name: 'Where is what is sought?' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dowsing query' }).waitFor();
    const answer = page.getByTestId('dowsing-answer');
    const queryMap = answer.getByTestId('place-map');
    await queryMap.getByRole('img').waitFor();
    const query = (await client.get(`/v2/dowsing/queries/${queryId}`, { token })).body;
    const locations = query.result.locations as { coordinates: { lat: number; lng: number } }[];
    expect(locations.length).toBeGreaterThan(0);
    const label = (await queryMap.getByRole('img').getAttribute('aria-label'))!;
    locations.forEach((location, index) =>
      expect(label).toContain(
        `location ${index + 1} at ${degrees(location.coordinates.lat, location.coordinates.lng)}`,
      ),
    );
    const main = query.result.coordinates ? 1 : 0;
    expect(await queryMap.locator('.place-map-mark').count()).toBe(main + locations.length);
    // Each location numbered once, as in the table (locations a few metres apart share a label).
    const numbers = (await queryMap.locator('.place-map-number').allTextContents()).flatMap(
      (text) => text.split(', ').map(Number),
    );
    expect(numbers.sort()).toEqual(locations.map((_, index) => index + 1));
    expect(await problems()).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('keep Vega out of the first load, which stays within its budget', async () => {
    const directory = process.env.DASHBOARD_DIR ?? join('dist', 'dashboard');
    const manifest = JSON.parse(
      readFileSync(join(directory, '.vite', 'manifest.json'), 'utf8'),
    ) as Record<
      string,
      { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] }
    >;
    const vega = Object.entries(manifest).find(([key]) =>
      key.endsWith('components/charts/vega-view.tsx'),
    );
    expect(vega).toBeDefined();
    const [vegaKey] = vega!;
    // Imported dynamically (by chart.tsx), never statically by anything.
    expect(Object.values(manifest).some((chunk) => chunk.imports?.includes(vegaKey))).toBe(false);
    expect(Object.values(manifest).some((chunk) => chunk.dynamicImports?.includes(vegaKey))).toBe(
      true,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/dashboard-size.mjs'], {
      env: { ...process.env, DASHBOARD_DIR: directory },
    });
    expect(stdout).toMatch(/within the 300 KB budget/);
    expect(stdout).not.toContain('vega');
  });
});

/** Run in the page: the element's running CSS animation, `none` for none. */
const animationName = (element: unknown) =>
  (
    globalThis as unknown as {
      getComputedStyle(element: unknown): { animationName: string };
    }
  ).getComputedStyle(element).animationName;

/** As the map names a place: 51.50740° N, 0.12780° W. */
function degrees(latitude: number, longitude: number): string {
  return `${Math.abs(latitude).toFixed(5)}° ${latitude >= 0 ? 'N' : 'S'}, ${Math.abs(longitude).toFixed(5)}° ${longitude >= 0 ? 'E' : 'W'}`;
}
