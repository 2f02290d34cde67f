import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { openBrowser, seriousViolations, signIn, tabTo } from './support/dashboard.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

// The History pages as built, served by the real API, with the real worker finishing a
// session (so it becomes a case) and building reports. An organisation of its own.

const TARGET = 'Envelope 4711: the quillwort lighthouse';

let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;
let admin: TestMember;
let browser: Browser;
let page: Page;

/** Cases the API's v2 search finds for `q` in the organisation (live mode). */
async function searchApi(q: string): Promise<{ id: string; target: string }[]> {
  const response = await client.get(`/v2/history/search?q=${encodeURIComponent(q)}`, { token });
  expect(response.status).toBe(200);
  return response.body.data;
}

const nav = (name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
  admin = await addMember(stack, org, ['admin'], 'History Admin');
  // Finished work becomes a case: a session run by the simulated engine.
  const session = await client.post('/v1/sessions', {
    token,
    json: { type: 'remote_viewing', target: TARGET, modality: 'visual' },
  });
  expect(session.status).toBe(201);
  await waitFor(async () => ((await searchApi('quillwort')).length === 1 ? true : null));
  ({ browser, page } = await openBrowser());
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the dashboard history pages', () => {
  it('finds a case by keyboard alone, opens it and records its outcome', async () => {
    await signIn(page, stack.baseUrl, admin, { path: '/history', heading: 'History' });
    await page.getByRole('link', { name: TARGET }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Keyboard only: Tab to the search field, type, Enter; Tab to the result, Enter.
    const searchField = page.getByLabel('Search text');
    expect(await tabTo(page, searchField)).toBe(true);
    await page.keyboard.type('quillwort');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: /Matching cases/ }).waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('quillwort');
    const result = page.getByRole('link', { name: TARGET });
    await page.locator('mark', { hasText: 'quillwort' }).first().waitFor();
    expect(await tabTo(page, result)).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: TARGET }).waitFor();
    const caseId = new URL(page.url()).pathname.split('/').pop()!;
    expect(caseId).toMatch(/^hist_/);
    await page.getByText('No outcome recorded yet').waitFor();
    await page.getByRole('link', { name: /^Session / }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Hit', { exact: true }).check();
    await page.getByLabel('What really happened').fill('A lighthouse on a marsh of quillwort');
    await page.getByLabel('Location found').selectOption('true');
    await page.getByLabel('Latitude').fill('53.5');
    await page.getByLabel('Longitude').fill('8.1');
    await page.getByLabel('How it was verified').fill('Site visit');
    await page.getByLabel(/Verified independently/).check();
    await page.getByLabel('Verified by (required)').fill('Dr Quill');
    await page.getByRole('button', { name: 'Record outcome' }).click();
    await page.getByRole('status').filter({ hasText: 'Outcome recorded: Hit' }).waitFor();
    const shown = page.getByTestId('case-outcome');
    expect(await shown.textContent()).toContain('A lighthouse on a marsh of quillwort');
    expect(await shown.textContent()).toContain('Dr Quill');
    await page.getByRole('heading', { level: 2, name: 'Correct the outcome' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const stored = await client.get(`/v1/history/${caseId}`, { token });
    expect(stored.body).toMatchObject({
      verdict: 'hit',
      outcome: 'A lighthouse on a marsh of quillwort',
      verified_by: 'Dr Quill',
      verified_coordinates: { latitude: 53.5, longitude: 8.1 },
      results: { location_found: true, verification: 'Site visit' },
      validation: { independent_verification: true, accuracy_confirmed: false },
    });
  });

  it('imports NDJSON with one bad row, shows the per-row report, and the good rows are searchable', async () => {
    await nav('Import').click();
    await page.getByRole('heading', { level: 1, name: 'Import history' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const rows = [
      { external_id: 'mg-1', type: 'dowsing', date: '2020-03-01', target: 'Marigold well one' },
      { external_id: 'mg-2', type: 'tarot', date: '2020-03-02', target: 'Marigold bad row' },
      { external_id: 'mg-3', type: 'analysis', date: '2020-03-03', target: 'Marigold well two' },
    ];
    await page.getByLabel(/^File/).setInputFiles({
      name: 'cases.ndjson',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(rows.map((row) => JSON.stringify(row)).join('\n')),
    });
    await page.getByText('cases.ndjson reads as NDJSON').waitFor();
    await page.getByRole('button', { name: 'Import' }).click();
    const report = page.getByTestId('import-report');
    await report.getByRole('heading', { name: 'Import report: cases.ndjson' }).waitFor();
    expect(await report.getByTestId('count-imported').textContent()).toBe('2');
    expect(await report.getByTestId('count-updated').textContent()).toBe('0');
    expect(await report.getByTestId('count-failed').textContent()).toBe('1');
    const refused = report.getByRole('row', { name: /^2\b/ });
    expect(await refused.textContent()).toContain('type');
    expect(await report.getByRole('row').count()).toBe(2); // the header and line 2
    expect(await seriousViolations(page)).toEqual([]);

    const found = await searchApi('marigold');
    expect(found.map((item) => item.target).sort()).toEqual([
      'Marigold well one',
      'Marigold well two',
    ]);
    await report.getByRole('link', { name: 'Search the history' }).click();
    await page.getByRole('heading', { level: 1, name: 'History' }).waitFor();
    await page.getByLabel('Search text').fill('marigold');
    await page.getByLabel('Search text').press('Enter');
    await page.getByRole('link', { name: 'Marigold well one' }).waitFor();
    await page.getByRole('link', { name: 'Marigold well two' }).waitFor();
    expect(await page.getByRole('link', { name: 'Marigold bad row' }).count()).toBe(0);
  });

  it('checks a CSV file in a dry run and stores nothing', async () => {
    await nav('Import').click();
    await page.getByRole('heading', { level: 1, name: 'Import history' }).waitFor();
    const csv = [
      'external_id,type,date,target,descriptors',
      'pp-1,remote_viewing,2021-01-05,Periwinkle tower,tall;stone',
      'pp-2,dowsing,2021-01-06,Periwinkle spring,',
    ].join('\n');
    await page.getByLabel(/^File/).setInputFiles({
      name: 'cases.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await page.getByLabel(/^Dry run/).check();
    await page.getByRole('button', { name: 'Check the file' }).click();
    const report = page.getByTestId('import-report');
    await report.getByRole('heading', { name: 'Dry run report: cases.csv' }).waitFor();
    expect(await report.getByTestId('count-imported').textContent()).toBe('2');
    expect(await report.getByTestId('count-failed').textContent()).toBe('0');
    expect(await report.textContent()).toContain('nothing was stored');
    expect(await searchApi('periwinkle')).toEqual([]);
  });

  it('generates a report, shows it ready, downloads it and deletes it', async () => {
    await nav('Reports').click();
    await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor();
    await page.getByText('No reports yet').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Report', { exact: true }).selectOption('history');
    await page.getByLabel('Format').selectOption('csv');
    await page.getByRole('button', { name: 'Generate report' }).click();
    const row = page.getByTestId('report');
    await row.getByText('Ready').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: /^Download/ }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const content = await readFile((await download.path())!, 'utf8');
    expect(content).toContain('case_id');
    expect(content).toContain(TARGET);
    expect(content).toContain('Marigold well one');

    const listed = await client.get('/v2/reports', { token });
    expect(listed.body.data).toHaveLength(1);
    await row.getByRole('button', { name: /^Delete/ }).click();
    await row.getByRole('button', { name: /^Confirm delete/ }).click();
    await page.getByText('No reports yet').waitFor();
    expect((await client.get('/v2/reports', { token })).body.data).toEqual([]);
  });
});
