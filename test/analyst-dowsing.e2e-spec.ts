import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haversineMeters } from '#statistics';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Dowsing queries answered by people (issue 18): `pending` from creation,
 * tasked blind to signed-in analysts (the query type only: never the
 * question, the area, the points or the options), answered from their
 * submissions — the weighted majority of yes/no answers, the weighted
 * plurality of picks among options, the weighted geometric median of places —
 * and failed at the deadline when nobody submitted (a clock 600× faster).
 */

const QUESTION = 'Is there water under the Lindenhof terrace?';
const LATITUDE = '47.372857';
const LONGITUDE = '8.540681';
const AREA = { latitude: Number(LATITUDE), longitude: Number(LONGITUDE), radius_meters: 2000 };

let stack: Stack;
let client: TestClient;

beforeAll(async () => {
  stack = await startStack({
    env: { ANALYST_CLOCK_SCALE: '600', ANALYST_DEADLINE_SWEEP_MS: '200' },
  });
  client = await TestClient.for(stack);
});

afterAll(async () => {
  await stack?.close();
});

type Analyst = TestMember & { token: string };

async function team(analystCount: number): Promise<{
  org: TestOrganization;
  admin: string;
  analysts: Analyst[];
}> {
  const org = await createOrganization(stack, client);
  const codeClient = await memberClient(client, org);
  const analysts = [];
  for (let i = 0; i < analystCount; i += 1) {
    const member = await addMember(stack, org, ['analyst'], `Dowser ${i}`);
    analysts.push({ ...member, token: await memberToken(stack, codeClient, member) });
  }
  return { org, admin: await org.token(), analysts };
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

async function assignmentOn(analyst: Analyst, workId: string, seen: string[]) {
  const list = await client.get('/v2/assignments?kind=dowsing', { token: analyst.token });
  expect(list.status).toBe(200);
  seen.push(list.text);
  const all = list.body.data as (Record<string, unknown> & { assignment_id: string })[];
  return all.find((a) => a.work_id === workId)!;
}

describe('a yes/no query answered by two analysts', () => {
  it('is pending, tasked blind, and answered by the majority of their answers', async () => {
    const { admin, analysts } = await team(2);
    const [first, second] = analysts as [Analyst, Analyst];
    const created = await client.post('/v1/dowsing/query', {
      token: admin,
      json: {
        query_type: 'yes_no',
        question: QUESTION,
        context: { location: AREA, timeframe: 'present', parameters: { depth: 'shallow' } },
        engine: 'analyst',
        analyst_count: 2,
        duration_minutes: 10_080,
      },
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      status: 'pending',
      query_type: 'yes_no',
      metadata: { engine: 'analyst', engine_version: 'analyst-1', evidence: null },
    });
    expect(created.body.result).toBeUndefined();
    const queryId = created.body.query_id as string;

    const seen: string[] = [];
    const assignment = await assignmentOn(first, queryId, seen);
    expect(assignment).toMatchObject({
      kind: 'dowsing',
      question_type: 'yes_no',
      modality: null,
      duration_minutes: 10_080,
      status: 'assigned',
      target: null,
    });
    await assignmentOn(second, queryId, seen);
    for (const path of [`/v2/dowsing/queries/${queryId}`, '/v2/dowsing/queries', '/v2/events']) {
      const refused = await client.get(path, { token: first.token });
      expect(refused.status).toBe(403);
      seen.push(refused.text);
    }

    const json = await client.post(`/v2/dowsing/queries/${queryId}/results`, {
      token: first.token,
      json: { descriptors: ['Yes', 'cold'], notes: 'Strong pull downwards' },
    });
    expect(json.status).toBe(200);
    seen.push(json.text);
    expect(json.body).toMatchObject({ status: 'submitted', kind: 'dowsing', target: null });
    expect((await client.get(`/v2/dowsing/queries/${queryId}`, { token: admin })).body.status).toBe(
      'pending',
    );

    const form = new FormData();
    form.append('descriptors', 'yes,water');
    form.append('confidence', '0.8');
    const upload = await multipart(form);
    const last = await client.post(`/v2/dowsing/queries/${queryId}/results`, {
      token: second.token,
      raw: { body: upload.body, contentType: upload.contentType },
    });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ status: 'completed', target: QUESTION });

    // Both answered yes: positive; their picks agree fully (agreement 1); no judged trials.
    const answered = (await client.get(`/v2/dowsing/queries/${queryId}`, { token: admin })).body;
    expect(answered).toMatchObject({
      status: 'completed',
      metadata: { engine: 'analyst', evidence: 'prior' },
    });
    expect(answered.result).toMatchObject({
      answer: 'positive',
      confidence: 1,
      baseline: 0.333333,
      confidence_interval: [0, 1],
      statistical_significance: { p_value: 1, effect_size: 0, sample_size: 0 },
      locations: [],
    });
    expect(answered.result.chart_data).toMatchObject({
      chart_type: 'pendulum',
      readings: [1, 0, 0],
    });
    expect(answered.result.coordinates).toBeUndefined();
    const [completed] = await events(admin, 'dowsing.query_completed');
    expect(completed!.data).toMatchObject({ query_id: queryId, answer: 'positive', confidence: 1 });

    const revealed = (
      await client.get(`/v2/assignments/${assignment.assignment_id}`, { token: first.token })
    ).body;
    expect(
      createHash('sha256').update(`${revealed.target_nonce}:${QUESTION}`, 'utf8').digest('hex'),
    ).toBe(revealed.target_commitment);

    for (const text of seen) {
      for (const secret of ['Lindenhof', LATITUDE, LONGITUDE, 'shallow']) {
        expect(text).not.toContain(secret);
      }
    }
    expect(JSON.stringify(await events(admin, 'assignment.created'))).not.toContain('Lindenhof');
  });
});

describe('picks and places answered by three analysts', () => {
  it('takes the weighted plurality of picks and the weighted geometric median of points', async () => {
    const { admin, analysts } = await team(3);
    const chart = await client.post('/v1/dowsing/chart-analysis', {
      token: admin,
      json: {
        question: 'Which street holds the lost ring?',
        chart_type: 'radar',
        options: ['Bahnhofstrasse', 'Limmatquai', 'Paradeplatz'],
        engine: 'analyst',
        analyst_count: 3,
        duration_minutes: 10_080,
      },
    });
    expect(chart.status).toBe(202);
    const chartId = chart.body.query_id as string;
    const seen: string[] = [];
    for (const analyst of analysts) {
      expect(await assignmentOn(analyst, chartId, seen)).toMatchObject({
        question_type: 'information',
      });
    }
    for (const [i, pick] of ['limmatquai', 'Limmatquai', 'paradeplatz'].entries()) {
      const response = await client.post(`/v2/dowsing/queries/${chartId}/results`, {
        token: analysts[i]!.token,
        json: { descriptors: ['old', pick] },
      });
      expect(response.status).toBe(200);
    }
    const chartResult = (await client.get(`/v2/dowsing/queries/${chartId}`, { token: admin })).body
      .result;
    // Equal weights (nobody has a record): Limmatquai 2/3, Paradeplatz 1/3; agreement of the
    // picks = mean of (share − 1/3)/(2/3) over the two picked = (0.5 + 0)/2 = 0.25.
    expect(chartResult).toMatchObject({
      answer: 'Limmatquai',
      confidence: 0.25,
      baseline: 0.333333,
      chart_data: { chart_type: 'radar', readings: [0, 0.666667, 0.333333] },
    });
    for (const text of seen) expect(text).not.toMatch(/Bahnhofstrasse|Paradeplatz|lost ring/);

    const location = await client.post('/v1/dowsing/query', {
      token: admin,
      json: {
        query_type: 'location',
        question: 'Where is the spring?',
        context: { location: AREA },
        engine: 'analyst',
        analyst_count: 3,
        duration_minutes: 10_080,
      },
    });
    expect(location.status).toBe(202);
    const locationId = location.body.query_id as string;
    const points = [
      { latitude: 47.37, longitude: 8.54 },
      { latitude: 47.37, longitude: 8.54 },
      { latitude: 47.38, longitude: 8.55 },
    ];
    for (const [i, point] of points.entries()) {
      const response = await client.post(`/v2/dowsing/queries/${locationId}/results`, {
        token: analysts[i]!.token,
        json: { descriptors: ['spring'], coordinates: point },
      });
      expect(response.status).toBe(200);
    }
    const placed = (await client.get(`/v2/dowsing/queries/${locationId}`, { token: admin })).body
      .result;
    // Two of three at one point: the geometric median is that point; accuracy is the mean
    // distance of the three points from it.
    expect(placed.answer).toBe('47.37, 8.54');
    expect(placed.coordinates).toEqual({
      latitude: 47.37,
      longitude: 8.54,
      accuracy_meters: Math.round(haversineMeters(points[2]!, points[0]!) / 3),
    });
    expect(placed.locations).toHaveLength(1);
    expect(placed.locations[0].coordinates).toEqual({ lat: 47.37, lng: 8.54 });
  });
});

describe('dowsing deadlines and the simulator', () => {
  it('fails a query nobody answered by the deadline', async () => {
    const { admin } = await team(1);
    const created = await client.post('/v1/dowsing/query', {
      token: admin,
      json: { query_type: 'yes_no', question: QUESTION, duration_minutes: 1 },
    });
    // The organisation has an analyst: people answer by default.
    expect(created.status).toBe(202);
    const queryId = created.body.query_id as string;
    const failed = await waitFor(async () => {
      const read = (await client.get(`/v2/dowsing/queries/${queryId}`, { token: admin })).body;
      return read.status === 'failed' ? read : null;
    });
    expect(failed).toMatchObject({
      failure_reason: 'deadline_exceeded',
      failure_message: 'No analyst submitted before the deadline',
    });
    const [event] = await events(admin, 'dowsing.query_failed');
    expect(event!.data).toMatchObject({ query_id: queryId, reason: 'deadline_exceeded' });
  });

  it('answers at once with engine simulated, and batches task their items one by one', async () => {
    const { admin, analysts } = await team(1);
    const simulated = await client.post('/v1/dowsing/query', {
      token: admin,
      json: { query_type: 'yes_no', question: QUESTION, engine: 'simulated' },
    });
    expect(simulated.status).toBe(201);
    expect(simulated.body.status).toBe('completed');
    const refused = await client.post(`/v2/dowsing/queries/${simulated.body.query_id}/results`, {
      token: analysts[0]!.token,
      json: { descriptors: ['yes'] },
    });
    // An analyst learns nothing of work not theirs: 404, as for an id that does not exist.
    expect(refused.status).toBe(404);
    const unknown = await client.post(
      '/v2/dowsing/queries/dowse_01m82sfbpbenftg57hv349pfkd/results',
      {
        token: analysts[0]!.token,
        json: { descriptors: ['water'] },
      },
    );
    expect(unknown.status).toBe(404);
    expect(refused.body.error.code).toBe(unknown.body.error.code);
    const byClient = await client.post(`/v2/dowsing/queries/${simulated.body.query_id}/results`, {
      token: admin,
      json: { descriptors: ['yes'] },
    });
    expect(byClient.status).toBe(409);

    const batch = await client.post('/v2/dowsing/batch', {
      token: admin,
      json: {
        queries: [
          { variant: 'query', query_type: 'yes_no', question: QUESTION, duration_minutes: 10_080 },
          { variant: 'query', query_type: 'yes_no', question: QUESTION, engine: 'simulated' },
        ],
      },
    });
    expect(batch.status).toBe(201);
    expect(batch.body).toMatchObject({
      status: 'processing',
      counts: { pending: 1, completed: 1, failed: 0 },
    });
    const [pending] = batch.body.queries as { query_id: string; status: string }[];
    expect(pending!.status).toBe('pending');
    const mine = (await client.get('/v2/assignments', { token: analysts[0]!.token })).body.data;
    expect(mine.map((a: { work_id: string }) => a.work_id)).toEqual([pending!.query_id]);
  });
});
