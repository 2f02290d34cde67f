import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESCRIPTOR_TERMS } from '#engines';
import { VOCABULARY_TERMS } from '../apps/dashboard/src/pages/members/vocabulary.js';
import { TestClient } from './support/client.js';
import { isFocused, openBrowser, seriousViolations, signIn } from './support/dashboard.js';
import {
  createOrganization,
  poolTarget,
  TEST_PNG_PATH,
  type TestOrganization,
} from './support/factories.js';
import { addMember, memberClient, memberToken, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';

// The analysts' and judges' pages, in Chromium against the real API and worker: an
// analyst submits blind with a sketch upload and sees the reveal; a judge ranks.

const TARGET = 'The Eiffel Tower, Champ de Mars, Paris';
const TRUTH = 'A tall iron lattice tower by a river';
const PNG_PATH = TEST_PNG_PATH;
const PNG = readFileSync(PNG_PATH);

let stack: Stack;
let client: TestClient;
let browser: Browser;
let page: Page;
let org: TestOrganization;
let admin: string;
let analysts: (TestMember & { token: string })[];
let judge: TestMember & { token: string };

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  admin = await org.token();
  const codeClient = await memberClient(client, org);
  await addMember(stack, org, ['admin'], 'Admin');
  analysts = [];
  for (const name of ['Analyst One', 'Analyst Two']) {
    const member = await addMember(stack, org, ['analyst'], name);
    analysts.push({ ...member, token: await memberToken(stack, codeClient, member) });
  }
  const judgeMember = await addMember(stack, org, ['judge'], 'Judge');
  judge = { ...judgeMember, token: await memberToken(stack, codeClient, judgeMember) };
  ({ browser, page } = await openBrowser());
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** A pool target with one photo. */
function addPoolTarget(description: string, descriptors: string[]): Promise<string> {
  return poolTarget(stack, client, admin, {
    description,
    descriptors,
    latitude: 10,
    longitude: 20,
  });
}

const mainNavigation = (p: Page) => p.getByRole('navigation', { name: 'Main' });
const navigationLinks = async (p: Page) =>
  (await mainNavigation(p).getByRole('link').allTextContents()).map((text) => text.trim());

describe('the analysts’ and judges’ pages', () => {
  it('offers the API’s descriptor vocabulary', () => {
    expect([...VOCABULARY_TERMS].sort()).toEqual([...DESCRIPTOR_TERMS].sort());
  });

  it('an analyst submits blind with a sketch and sees the reveal; a judge ranks by dragging and keyboard', async () => {
    const [first, second] = analysts as [(typeof analysts)[0], (typeof analysts)[0]];
    const truthId = await addPoolTarget(TRUTH, ['tall', 'metal', 'water', 'vertical']);
    for (const [i, words] of [['land'], ['round'], ['water', 'natural'], ['building']].entries()) {
      await addPoolTarget(`Decoy place ${i}`, words);
    }
    const created = await client.post('/v2/sessions/create', {
      token: admin,
      json: {
        type: 'remote_viewing',
        target: TARGET,
        modality: 'visual',
        engine: 'analyst',
        analyst_count: 2,
        analyst_ids: [first.analystId, second.analystId],
        judging: true,
        decoy_count: 4,
        target_id: truthId,
      },
    });
    expect(created.status).toBe(201);
    const sessionId = created.body.session_id as string;
    const blind = async () => {
      const html = await page.content();
      expect(html).not.toContain('Eiffel');
      expect(html).not.toContain('iron lattice');
      expect(html).not.toContain(truthId);
    };

    // The analyst lands on a welcome page pointing to their own work (no organisation figures),
    // and sees only their own work in the navigation.
    await signIn(page, stack.baseUrl, first, { heading: 'Welcome, Analyst One' });
    expect(await navigationLinks(page)).toEqual(['Assignments']);
    expect(await page.getByRole('heading', { name: 'Usage against plan and tier' }).count()).toBe(
      0,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Your assignments' }).click();
    await page.getByRole('heading', { level: 1, name: 'Assignments' }).waitFor();
    const rows = page.getByRole('table').getByRole('row');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2); // the header and their one assignment
    const mine = (await client.get('/v2/assignments', { token: first.token })).body.data[0];
    const link = page.getByRole('link', { name: mine.target_reference_number });
    expect(await link.count()).toBe(1);
    await blind();
    expect(await seriousViolations(page)).toEqual([]);

    // Their assignment, blind; the submission form.
    await link.click();
    await page
      .getByRole('heading', { level: 1, name: `Assignment ${mine.target_reference_number}` })
      .waitFor();
    expect(await page.getByTestId('assignment-status').textContent()).toBe('Assigned: to do');
    await blind();
    expect(await seriousViolations(page)).toEqual([]);

    for (const term of ['water', 'tall', 'metal']) {
      await page.getByRole('checkbox', { name: term, exact: true }).check();
    }
    await page.getByLabel('Other words (comma-separated)').fill('lattice, cold wind');

    // Coordinates: a click on the map near Paris fills latitude and longitude.
    const map = page.getByRole('application', { name: /World map/ });
    const box = (await map.boundingBox())!;
    await map.click({
      position: {
        x: (box.width * (180 + 2.29)) / 360,
        y: (box.height * (90 - 48.86)) / 180,
      },
    });
    await page.getByTestId('map-marker').waitFor();
    const latitude = Number(await page.getByLabel('Latitude').inputValue());
    const longitude = Number(await page.getByLabel('Longitude').inputValue());
    expect(Math.abs(latitude - 48.86)).toBeLessThan(1);
    expect(Math.abs(longitude - 2.29)).toBeLessThan(1);
    // The keyboard moves the marker too (a degree a press), the fields following.
    await map.focus();
    await page.keyboard.press('ArrowUp');
    await expect
      .poll(async () => Number(await page.getByLabel('Latitude').inputValue()))
      .toBeCloseTo(latitude + 1, 4);
    await page.keyboard.press('ArrowDown');
    await expect
      .poll(async () => Number(await page.getByLabel('Latitude').inputValue()))
      .toBeCloseTo(latitude, 4);

    await page.getByLabel('Notes (optional)').fill('Iron beams, a sense of height.');
    await page.getByLabel('Your confidence, 0–100 % (optional)').fill('70');
    await page.getByLabel('Upload sketches (PNG, JPEG or SVG)').setInputFiles(PNG_PATH);
    await page.getByRole('img', { name: 'Sketch to send: plain.png' }).waitFor();
    // A drawing made in the page joins the sketches as a PNG.
    await page.getByText('Or draw a sketch here').click();
    const canvas = (await page.getByRole('img', { name: 'Drawing area' }).boundingBox())!;
    await page.mouse.move(canvas.x + 20, canvas.y + 20);
    await page.mouse.down();
    await page.mouse.move(canvas.x + 120, canvas.y + 80, { steps: 5 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Add drawing to sketches' }).click();
    await page.getByRole('img', { name: 'Sketch to send: drawing-1.png' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Submit', exact: true }).click();

    await page.getByRole('heading', { level: 2, name: 'What you submitted' }).waitFor();
    await page.getByRole('img', { name: 'Your sketch 1' }).waitFor();
    await page.getByRole('img', { name: 'Your sketch 2' }).waitFor();
    expect(await page.getByTestId('assignment-status').textContent()).toBe('Submitted');
    await blind();

    // Through the API: submitted, with the sketch stored byte for byte.
    const submitted = (
      await client.get(`/v2/assignments/${mine.assignment_id}`, { token: first.token })
    ).body;
    expect(submitted.status).toBe('submitted');
    expect(submitted.target).toBeNull();
    expect(submitted.submission.descriptors).toEqual(
      expect.arrayContaining(['water', 'tall', 'metal', 'lattice', 'cold wind']),
    );
    expect(submitted.submission.coordinates.latitude).toBeCloseTo(latitude, 4);
    expect(submitted.submission.confidence).toBe(0.7);
    expect(
      submitted.submission.sketches.map((sketch: { content_type: string }) => sketch.content_type),
    ).toEqual(['image/png', 'image/png']);
    const stored = await fetch(submitted.submission.sketches[0].url, {
      headers: { authorization: `Bearer ${first.token}` },
    });
    expect(Buffer.from(await stored.arrayBuffer()).equals(PNG)).toBe(true);

    // The other analyst submits; the work completes and the page reveals the target.
    const last = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: second.token,
      json: { descriptors: ['tall', 'water'], coordinates: { latitude: 48.85, longitude: 2.3 } },
    });
    expect(last.status).toBe(200);
    expect(last.body.status).toBe('completed');
    await page.getByTestId('revealed-target').getByText(TARGET).waitFor();
    await page.getByTestId('commitment-check').getByText('✓').waitFor();
    expect(await page.getByTestId('assignment-status').textContent()).toBe('Completed');
    expect(await seriousViolations(page)).toEqual([]);

    // The judge signs in (a browser of their own) and ranks the candidates.
    const judgeContext = await browser.newContext({ bypassCSP: true });
    const judgePage = await judgeContext.newPage();
    await signIn(judgePage, stack.baseUrl, judge, { path: '/judging', heading: 'Judging' });
    expect(await navigationLinks(judgePage)).toEqual(['Judging']);
    const taskLink = judgePage.getByRole('link', { name: /^Rank the task of/ });
    await taskLink.waitFor();
    expect(await seriousViolations(judgePage)).toEqual([]);
    await taskLink.click();
    await judgePage.getByRole('heading', { level: 1, name: 'Judging task' }).waitFor();
    const taskId = new URL(judgePage.url()).pathname.split('/').pop()!;
    const task = (await client.get(`/v2/judging-tasks/${taskId}`, { token: judge.token })).body;
    const candidateIds = (task.candidates as { candidate_id: string }[]).map((c) => c.candidate_id);
    expect(candidateIds).toHaveLength(5);
    await judgePage.getByRole('img', { name: 'Candidate 5, photo 1' }).waitFor();
    await judgePage.getByRole('heading', { level: 3, name: 'Submission A' }).waitFor();
    await judgePage.getByRole('img', { name: /^Submission [AB], sketch 1$/ }).waitFor();
    expect(await seriousViolations(judgePage)).toEqual([]);

    const cards = judgePage.getByTestId('candidate');
    const order = async () =>
      (await cards.getByRole('heading', { level: 3 }).allTextContents()).map((text) =>
        text.replace(/^\d+\.\s*/, ''),
      );
    expect(await order()).toEqual([1, 2, 3, 4, 5].map((n) => `Candidate ${n}`));

    // Dragging the last candidate onto the first place…
    await cards.nth(4).dragTo(cards.nth(0));
    await expect.poll(order).toEqual([5, 1, 2, 3, 4].map((n) => `Candidate ${n}`));
    // …then one move with the keyboard, announced, the focus kept on the moved candidate.
    const moveDown = judgePage.getByRole('button', { name: 'Move down Candidate 5' });
    await moveDown.focus();
    await judgePage.keyboard.press('Enter');
    await expect.poll(order).toEqual([1, 5, 2, 3, 4].map((n) => `Candidate ${n}`));
    expect(await judgePage.getByTestId('ranking-announcement').textContent()).toBe(
      'Candidate 5 moved to rank 2 of 5.',
    );
    expect(await moveDown.evaluate(isFocused)).toBe(true);

    await judgePage.getByRole('button', { name: 'Submit ranking…' }).click();
    await judgePage.getByRole('button', { name: 'Yes, send the ranking' }).click();
    await judgePage.getByRole('heading', { level: 2, name: 'Your ranking' }).waitFor();
    expect(await judgePage.getByTestId('task-status').textContent()).toBe('Ranked');
    expect(await seriousViolations(judgePage)).toEqual([]);

    const ranked = (await client.get(`/v2/judging-tasks/${taskId}`, { token: judge.token })).body;
    expect(ranked.status).toBe('ranked');
    expect(ranked.ranking).toEqual([0, 4, 1, 2, 3].map((i) => candidateIds[i]));
    await judgeContext.close();
  });
});
