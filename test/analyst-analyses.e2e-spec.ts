import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredClient } from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Target analyses done by people (issue 18): tasked blind to two analysts
 * signed in with their own tokens (never the description, the reference
 * material or its coordinates), submitted as JSON and as multipart, completed
 * from their submissions into AnalysisResults checked by hand, and closed at
 * the deadline on a clock running 600 times faster than the wall clock.
 */

const TARGET = 'The old water tower north of the river Spree';
const PHOTO = 'https://material.example/photos/tower-1923.jpg';
const DOCUMENT = 'https://material.example/docs/tower-survey.pdf';
const LATITUDE = '52.520008';
const LONGITUDE = '13.404954';
const PNG = readFileSync(new URL('./fixtures/reference-material/plain.png', import.meta.url));

let stack: Stack;
let client: TestClient;

beforeAll(async () => {
  // 600×: a minute of analyst time is 100 ms; the worker closes overdue work every 200 ms.
  stack = await startStack({
    env: { ANALYST_CLOCK_SCALE: '600', ANALYST_DEADLINE_SWEEP_MS: '200' },
  });
  client = await TestClient.for(stack);
});

afterAll(async () => {
  await stack?.close();
});

type Analyst = TestMember & { token: string };

interface Team {
  org: TestOrganization;
  admin: string;
  codeClient: RegisteredClient;
  analysts: Analyst[];
}

async function team(analystCount = 2): Promise<Team> {
  const org = await createOrganization(stack, client);
  const codeClient = await memberClient(client, org);
  const analysts = [];
  for (let i = 0; i < analystCount; i += 1) {
    const member = await addMember(stack, org, ['analyst'], `Analyst ${i}`);
    analysts.push({ ...member, token: await memberToken(stack, codeClient, member) });
  }
  return { org, admin: await org.token(), codeClient, analysts };
}

async function multipart(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}

async function events(token: string, type: string) {
  const response = await client.get(`/v2/events?type=${type}&per_page=100`, { token });
  expect(response.status).toBe(200);
  return response.body.data as { type: string; data: Record<string, unknown> }[];
}

function analysisBody(extra: Record<string, unknown>) {
  return {
    target_type: 'location',
    description: TARGET,
    reference_material: {
      photos: [PHOTO],
      documents: [DOCUMENT],
      coordinates: { latitude: Number(LATITUDE), longitude: Number(LONGITUDE) },
    },
    analysis_type: 'comprehensive',
    ...extra,
  };
}

describe('an analysis done by two analysts', () => {
  it('tasks blind, takes JSON and multipart submissions, and completes from them', async () => {
    const { admin, analysts } = await team();
    const [first, second] = analysts as [Analyst, Analyst];
    const created = await client.post('/v1/analysis/submit', {
      token: admin,
      json: analysisBody({ engine: 'analyst', analyst_count: 2, duration_minutes: 10_080 }),
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('processing');
    const analysisId = created.body.analysis_id as string;
    const status = async () =>
      (await client.get(`/v1/analysis/${analysisId}`, { token: admin })).body;
    expect(await status()).toMatchObject({
      status: 'processing',
      progress: 0,
      current_step: 'analyst_work',
    });

    const seenByAnalysts: string[] = [];
    const list = await client.get('/v2/assignments?kind=analysis', { token: first.token });
    expect(list.status).toBe(200);
    seenByAnalysts.push(list.text);
    expect(list.body.data).toHaveLength(1);
    const assignment = list.body.data[0];
    expect(assignment).toMatchObject({
      work_id: analysisId,
      kind: 'analysis',
      question_type: 'comprehensive',
      modality: null,
      duration_minutes: 10_080,
      status: 'assigned',
      submission: null,
      target: null,
      target_nonce: null,
    });
    const secondList = await client.get('/v2/assignments', { token: second.token });
    seenByAnalysts.push(secondList.text);
    expect(secondList.body.data[0].target_commitment).toBe(assignment.target_commitment);

    // The analysis itself is not theirs to read.
    for (const path of [
      `/v1/analysis/${analysisId}`,
      `/v1/analysis/${analysisId}/results`,
      '/v2/analysis',
      '/v2/events',
    ]) {
      const refused = await client.get(path, { token: first.token });
      expect(refused.status).toBe(403);
      seenByAnalysts.push(refused.text);
    }

    const submitted = await client.post(`/v2/analysis/${analysisId}/results`, {
      token: first.token,
      json: {
        descriptors: ['Water', 'tall', 'round'],
        coordinates: { latitude: 52.5, longitude: 13.4 },
        notes: 'A cylinder on legs.\nWind.',
      },
    });
    expect(submitted.status).toBe(200);
    seenByAnalysts.push(submitted.text);
    expect(submitted.body).toMatchObject({ status: 'submitted', target: null, kind: 'analysis' });
    expect(await status()).toMatchObject({ status: 'processing', progress: 50 });

    const form = new FormData();
    form.append('descriptors', 'water,metal');
    form.append('notes', 'Rusty stairs');
    form.append('sketches', new Blob([PNG], { type: 'image/png' }), 'a.png');
    const upload = await multipart(form);
    const last = await client.post(`/v2/analysis/${analysisId}/results`, {
      token: second.token,
      raw: { body: upload.body, contentType: upload.contentType },
    });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ status: 'completed', target: TARGET });
    expect(last.body.submission.sketches).toHaveLength(1);

    // Completed from the two submissions, by hand: support water 2/2, metal, round, tall 1/2 each;
    // descriptor agreement = mean of (share − 1/2)/(1/2) = (1 + 0 + 0 + 0)/4 = 0.25; one point only.
    expect(await status()).toMatchObject({ status: 'completed', progress: 100 });
    const read = await client.get(`/v1/analysis/${analysisId}/results`, { token: admin });
    expect(read.status).toBe(200);
    const { results, metadata } = read.body;
    expect(metadata).toMatchObject({
      engine: 'analyst',
      engine_version: 'analyst-1',
      evidence: 'prior',
      score_components: { material: null, analyst_agreement: 0.25, judging: null },
    });
    expect(results.confidence_score).toBe(0.25);
    expect(results.key_findings).toEqual([
      'water: reported by 2 of 2 (100 %)',
      'metal: reported by 1 of 2 (50 %)',
      'round: reported by 1 of 2 (50 %)',
      'tall: reported by 1 of 2 (50 %)',
      'Combined position 52.5, 13.4 (weighted geometric median, location confidence 0)',
      'The 2 analysts agree little on what they described (agreement 0.25)',
    ]);
    expect(results.descriptors).toEqual(['water', 'metal', 'round', 'tall']);
    // The notes come in the order the analysts were assigned (picked at random among equals).
    expect([
      'Combined from 2 analysts working blind on this location. Most supported descriptors: water (2 of 2), metal (1 of 2), round (1 of 2), tall (1 of 2). Notes: A cylinder on legs. / Rusty stairs',
      'Combined from 2 analysts working blind on this location. Most supported descriptors: water (2 of 2), metal (1 of 2), round (1 of 2), tall (1 of 2). Notes: Rusty stairs / A cylinder on legs.',
    ]).toContain(results.summary);
    // Agreement 0.25 < 0.5 and nothing but the prior: weights 1 + 1, medium.
    expect(results.risk_assessment).toEqual({
      level: 'medium',
      factors: ['low_analyst_agreement', 'prior_only_evidence'],
    });
    expect(results.recommendations).toHaveLength(2);

    // Events: started, progress at 50 and 100, completed with the combined confidence.
    const progress = await events(admin, 'analysis.progress_updated');
    expect(progress.map((e) => e.data.progress).sort()).toEqual([100, 50]);
    const [completed] = await events(admin, 'analysis.completed');
    expect(completed!.data).toMatchObject({ analysis_id: analysisId, confidence_score: 0.25 });
    expect(await events(admin, 'analysis.started')).toHaveLength(1);

    // Revealed now, and the commitment opens with it.
    const revealed = (
      await client.get(`/v2/assignments/${assignment.assignment_id}`, { token: first.token })
    ).body;
    expect(revealed).toMatchObject({ status: 'completed', target: TARGET });
    expect(
      createHash('sha256').update(`${revealed.target_nonce}:${TARGET}`, 'utf8').digest('hex'),
    ).toBe(revealed.target_commitment);

    // Nothing they read before the reveal named the target, its material or its place.
    for (const text of seenByAnalysts) {
      for (const secret of ['water tower', 'Spree', 'material.example', LATITUDE, LONGITUDE]) {
        expect(text).not.toContain(secret);
      }
    }
    const assignmentEvents = await events(admin, 'assignment.created');
    expect(JSON.stringify(assignmentEvents)).not.toContain('Spree');
  });

  it('keeps the simulated engine for engine simulated and in the sandbox', async () => {
    const { org, admin, analysts } = await team(1);
    const simulated = await client.post('/v1/analysis/targets', {
      token: admin,
      json: analysisBody({ engine: 'simulated' }),
    });
    expect(simulated.status).toBe(201);
    expect(simulated.body.status).toBe('queued');
    const refused = await client.post(`/v2/analysis/${simulated.body.analysis_id}/results`, {
      token: analysts[0]!.token,
      json: { descriptors: ['water'] },
    });
    // An analyst learns nothing of work not theirs: 404, as for an id that does not exist.
    expect(refused.status).toBe(404);
    const unknown = await client.post('/v2/analysis/anal_01m82sfbpbenftg57hv349pfkd/results', {
      token: analysts[0]!.token,
      json: { descriptors: ['water'] },
    });
    expect(unknown.status).toBe(404);
    expect(refused.body.error.code).toBe(unknown.body.error.code);
    // The organisation's own credential, which reads the work anyway, is told why (409 naming
    // `engine`); on analyst work it acts for no one.
    const byClient = await client.post(`/v2/analysis/${simulated.body.analysis_id}/results`, {
      token: admin,
      json: { descriptors: ['water'] },
    });
    expect(byClient.status).toBe(409);
    const byPeople = await client.post('/v1/analysis/targets', {
      token: admin,
      json: analysisBody({ engine: 'analyst', duration_minutes: 10_080 }),
    });
    const forNoOne = await client.post(`/v2/analysis/${byPeople.body.analysis_id}/results`, {
      token: admin,
      json: { descriptors: ['water'] },
    });
    expect(forNoOne.status).toBe(403);
    const assigned = (await client.get('/v2/assignments', { token: analysts[0]!.token })).body.data;
    expect(assigned.map((a: { work_id: string }) => a.work_id)).toEqual([
      byPeople.body.analysis_id,
    ]);

    const sandbox = await client.post('/v1/analysis/targets', {
      token: await org.apiKey(undefined, 'test'),
      json: analysisBody({ engine: 'analyst', analyst_count: 1 }),
    });
    expect(sandbox.status).toBe(201);
    expect(sandbox.body.status).toBe('queued');
    const done = await waitFor(async () => {
      const read = await client.get(`/v1/analysis/${sandbox.body.analysis_id}/results`, {
        token: await org.apiKey(undefined, 'test'),
      });
      return read.body.status === 'completed' ? read.body : null;
    });
    expect(done.metadata.engine).toBe('simulated');
  });

  it('defaults to the analysts when the organisation has one, and tasks batch items one by one', async () => {
    const { admin, analysts } = await team(1);
    const batch = await client.post('/v1/analysis/batch', {
      token: admin,
      json: {
        analyses: [
          analysisBody({ duration_minutes: 10_080 }),
          analysisBody({ engine: 'simulated' }),
          analysisBody({ engine: 'analyst', target_id: 'tgt_01jh2x7v4ke8rbk3a8y0v0d7qz' }),
        ],
      },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.details.field).toBe('analyses.2.target_id');

    const created = await client.post('/v1/analysis/batch', {
      token: admin,
      json: {
        analyses: [
          analysisBody({ duration_minutes: 10_080 }),
          analysisBody({ engine: 'simulated' }),
        ],
      },
    });
    expect(created.status).toBe(201);
    const [byPeople, simulated] = created.body.analyses as {
      analysis_id: string;
      status: string;
    }[];
    expect(byPeople!.status).toBe('processing');
    expect(simulated!.status).toBe('queued');
    const mine = (await client.get('/v2/assignments', { token: analysts[0]!.token })).body.data;
    expect(mine.map((a: { work_id: string }) => a.work_id)).toEqual([byPeople!.analysis_id]);

    // Cancelling it closes the analyst's assignment.
    const cancelled = await client.post(`/v1/analysis/${byPeople!.analysis_id}/cancel`, {
      token: admin,
    });
    expect(cancelled.status).toBe(200);
    const after = (await client.get('/v2/assignments', { token: analysts[0]!.token })).body.data;
    expect(after[0].status).toBe('cancelled');
  });
});

describe('a judged analysis', () => {
  it('opens blind judging when it completes, the description as the true candidate', async () => {
    const { org, admin, codeClient, analysts } = await team(1);
    const judgeMember = await addMember(stack, org, ['judge'], 'Judge');
    const judge = await memberToken(stack, codeClient, judgeMember);
    const decoy = await client.post('/v2/targets', {
      token: admin,
      json: { description: 'A quiet meadow', descriptors: ['green', 'flat'] },
    });
    expect(decoy.status).toBe(201);
    const created = await client.post('/v1/analysis/submit', {
      token: admin,
      json: analysisBody({ judging: true, decoy_count: 1, duration_minutes: 10_080 }),
    });
    expect(created.status).toBe(201);
    const submitted = await client.post(`/v2/analysis/${created.body.analysis_id}/results`, {
      token: analysts[0]!.token,
      json: { descriptors: ['water', 'tall'] },
    });
    expect(submitted.body.status).toBe('completed');
    const list = await client.get('/v2/judging-tasks', { token: judge });
    expect(list.body.data).toHaveLength(1);
    const task = await client.get(`/v2/judging-tasks/${list.body.data[0].judging_task_id}`, {
      token: judge,
    });
    expect(task.status).toBe(200);
    const descriptions = (task.body.candidates as { description: string }[])
      .map((c) => c.description)
      .sort();
    expect(descriptions).toEqual(['A quiet meadow', TARGET]);
    expect(task.text).not.toContain('material.example');
    expect(task.text).not.toContain(created.body.analysis_id);
  });
});

describe('analysis deadlines', () => {
  it('complete with the submissions in, or fail with deadline_exceeded when there are none', async () => {
    const { admin, analysts } = await team(2);
    // 20 minutes of analyst time: 2 s of wall time at 600×.
    const partly = await client.post('/v1/analysis/submit', {
      token: admin,
      json: analysisBody({ engine: 'analyst', analyst_count: 2, duration_minutes: 20 }),
    });
    expect(partly.status).toBe(201);
    const partlyId = partly.body.analysis_id as string;
    const mine = (await client.get('/v2/assignments', { token: analysts[0]!.token })).body.data[0];
    const submitted = await client.post(`/v2/analysis/${partlyId}/results`, {
      token: analysts[0]!.token,
      json: { descriptors: ['water', 'tall'] },
    });
    expect(submitted.status).toBe(200);

    // 1 minute: 100 ms of wall time; nobody submits.
    const empty = await client.post('/v1/analysis/submit', {
      token: admin,
      json: analysisBody({ engine: 'analyst', analyst_count: 1, duration_minutes: 1 }),
    });
    const emptyId = empty.body.analysis_id as string;

    const failed = await waitFor(async () => {
      const read = (await client.get(`/v1/analysis/${emptyId}`, { token: admin })).body;
      return read.status === 'failed' ? read : null;
    });
    expect(failed).toMatchObject({
      failure_reason: 'deadline_exceeded',
      failure_message: 'No analyst submitted before the deadline',
    });
    const failedEvents = await events(admin, 'analysis.failed');
    expect(failedEvents.map((e) => e.data)).toEqual([
      expect.objectContaining({ analysis_id: emptyId, reason: 'deadline_exceeded' }),
    ]);

    const completed = await waitFor(async () => {
      const read = (await client.get(`/v1/analysis/${partlyId}/results`, { token: admin })).body;
      return read.status === 'completed' ? read : null;
    });
    expect(completed.results.key_findings.slice(0, 2)).toEqual([
      'tall: reported by 1 of 1 (100 %)',
      'water: reported by 1 of 1 (100 %)',
    ]);
    expect(completed.results.risk_assessment).toEqual({
      level: 'medium',
      factors: ['prior_only_evidence'],
    });
    // The one who submitted sees the target; the other's assignment expired.
    const revealed = (
      await client.get(`/v2/assignments/${mine.assignment_id}`, { token: analysts[0]!.token })
    ).body;
    expect(revealed).toMatchObject({ status: 'completed', target: TARGET });
    const statuses = await Promise.all(
      analysts.map(async (a) =>
        (await client.get(`/v2/assignments?kind=analysis`, { token: a.token })).body.data.map(
          (x: { work_id: string; status: string }) => `${x.work_id === partlyId}:${x.status}`,
        ),
      ),
    );
    expect(statuses.flat()).toEqual(expect.arrayContaining(['true:completed', 'true:expired']));
    const late = await client.post(`/v2/analysis/${partlyId}/results`, {
      token: analysts[1]!.token,
      json: { descriptors: ['late'] },
    });
    expect(late.status).toBe(409);
  });
});
