import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JudgingService, TrackRecords, type JudgedWork } from '#analysts';
import { newKey, parsePublicId, Scope, toPublicId, type Tenant } from '#common';
import { Sql } from '#database';
import type { RegisteredClient } from './support/authorization.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * Blind judging (docs/analysts.md): rows of taskings and submitted
 * assignments are written straight into the database (tasking has tests of
 * its own), the task is opened as the lead's completion does it, inside a
 * transaction, and a real judge signs in (authorization code + PKCE) to
 * read it blind and rank it; then the judged trials, the events and the
 * track records are checked against hand-computed values.
 */
let stack: Stack;
let client: TestClient;
let sql: Sql;

const PNG = readFileSync(new URL('./fixtures/reference-material/plain.png', import.meta.url));
const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
);
const JUDGE_SCOPES = [Scope.SessionsRead, Scope.SessionsWrite, Scope.Profile];

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(() => stack?.close());

interface Team {
  org: TestOrganization;
  tenant: Tenant;
  codeClient: RegisteredClient;
}

async function team(): Promise<Team> {
  const org = await createOrganization(stack, client, 'live');
  return {
    org,
    tenant: { organizationId: org.organizationId, mode: 'live' },
    codeClient: await memberClient(client, org, JUDGE_SCOPES),
  };
}

async function addTarget(
  tenant: Tenant,
  description: string,
  descriptors: string[],
  photos = 1,
): Promise<string> {
  const { uuid } = newKey('target');
  await sql.rows(
    `INSERT INTO targets (id, organization_id, mode, description, descriptors, latitude, longitude)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [uuid, tenant.organizationId, tenant.mode, description, descriptors, 10 + Math.random(), 20],
  );
  for (let position = 0; position < photos; position++) {
    await sql.rows(
      `INSERT INTO target_photos (id, target_id, position, source_url, status, content_type, bytes, width, height)
       VALUES ($1, $2, $3, $4, 'fetched', 'image/png', $5, 1, 1)`,
      [
        newKey('targetPhoto').uuid,
        uuid,
        position,
        `https://photos.example/${uuid}/${position}.png`,
        PNG,
      ],
    );
  }
  return uuid;
}

async function pool(tenant: Tenant, size: number): Promise<void> {
  for (let i = 0; i < size; i++) {
    await addTarget(tenant, `Decoy place ${i} ${randomBytes(2).toString('hex')}`, [
      'land',
      'green',
    ]);
  }
}

interface Submission {
  member: TestMember;
  descriptors: string[];
  notes?: string;
  sketch?: Buffer;
}

/** A tasking with a fake work id and one submitted assignment per analyst. */
async function tasking(
  tenant: Tenant,
  submissions: Submission[],
  options: { kind?: JudgedWork['kind']; modality?: string | null; decoyCount?: number } = {},
): Promise<{ taskingId: string; workId: string; assignmentIds: string[] }> {
  const taskingId = randomUUID();
  const workId = newKey('session').uuid;
  await sql.rows(
    `INSERT INTO work_taskings (id, organization_id, mode, work_kind, work_id, target_reference_number,
       target_commitment, target_nonce, modality, duration_minutes, analyst_count, judging, decoy_count,
       deadline)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 30, $10, true, $11, now() + interval '1 hour')`,
    [
      taskingId,
      tenant.organizationId,
      tenant.mode,
      options.kind ?? 'session',
      workId,
      `TRN-${randomBytes(3).toString('hex')}`,
      randomBytes(32).toString('hex'),
      randomBytes(16).toString('hex'),
      options.modality === undefined ? 'visual' : options.modality,
      Math.max(1, submissions.length),
      options.decoyCount ?? 4,
    ],
  );
  const assignmentIds: string[] = [];
  for (const s of submissions) {
    const { uuid } = newKey('assignment');
    assignmentIds.push(uuid);
    await sql.rows(
      `INSERT INTO assignments (id, organization_id, mode, tasking_id, user_id, status, deadline,
         descriptors, latitude, longitude, notes, confidence, submitted_at)
       VALUES ($1, $2, $3, $4, $5, 'submitted', now() + interval '1 hour', $6, 37.8, -122.47, $7, 0.6, now())`,
      [
        uuid,
        tenant.organizationId,
        tenant.mode,
        taskingId,
        s.member.userId,
        s.descriptors,
        s.notes ?? null,
      ],
    );
    if (s.sketch) {
      await sql.rows(
        `INSERT INTO assignment_sketches (id, assignment_id, position, content_type, bytes, sha256)
         VALUES ($1, $2, 0, 'image/svg+xml', $3, 'x')`,
        [newKey('sketch').uuid, uuid, s.sketch],
      );
    }
  }
  return { taskingId, workId, assignmentIds };
}

async function open(
  tenant: Tenant,
  taskingId: string,
  workId: string,
  over: Partial<JudgedWork> = {},
): Promise<string> {
  const task = await sql.transaction((tx) =>
    stack.api.get(JudgingService).open(
      tx,
      tenant,
      {
        taskingId,
        kind: 'session',
        workPublicId: toPublicId('session', workId),
        modality: 'visual',
        decoyCount: 4,
        targetId: null,
        truth: {
          description: 'The Golden Gate Bridge at dusk',
          descriptors: ['bridge', 'water', 'metal', 'red paint'],
          latitude: 37.82,
          longitude: -122.48,
        },
        ...over,
      },
      null,
    ),
  );
  return task.id;
}

const taskRow = async (id: string) =>
  (
    await sql.rows<{ status: string; judge_user_id: string | null; true_candidate_id: string }>(
      'SELECT status, judge_user_id, true_candidate_id FROM judging_tasks WHERE id = $1',
      [id],
    )
  )[0]!;

const eventsOf = (organizationId: string) =>
  sql.rows<{ type: string; data: any }>(
    `SELECT type, data FROM events WHERE organization_id = $1 AND type LIKE 'judging_task.%' ORDER BY created_at, id`,
    [organizationId],
  );

describe('blind judging', () => {
  it('gives the task to a judge who reads it blind and ranks it: trials, events, track records', async () => {
    const { org, tenant, codeClient } = await team();
    const [a1, a2, judge] = [
      await addMember(stack, org, ['analyst'], 'Ada Viewer'),
      await addMember(stack, org, ['analyst'], 'Bo Viewer'),
      await addMember(stack, org, ['judge'], 'Judge Jo'),
    ];
    await pool(tenant, 5);
    const trueTarget = await addTarget(
      tenant,
      'The Golden Gate Bridge, San Francisco',
      ['bridge'],
      2,
    );
    const { taskingId, workId } = await tasking(tenant, [
      {
        member: a1,
        descriptors: ['water', 'Bridge', 'cold', 'orange'],
        notes: 'a long span',
        sketch: SVG,
      },
      { member: a2, descriptors: ['mountain', 'stone'] },
    ]);
    const id = await open(tenant, taskingId, workId, { targetId: trueTarget });
    const publicId = toPublicId('judgingTask', id);
    const row = await taskRow(id);
    expect(row).toMatchObject({ status: 'pending', judge_user_id: judge.userId });

    const token = await memberToken(stack, codeClient, judge);
    const list = await client.get('/v2/judging-tasks?status=pending', { token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((t: any) => t.judging_task_id)).toEqual([publicId]);
    expect((await client.get('/v2/judging-tasks?status=ranked', { token })).body.data).toEqual([]);

    const read = await client.get(`/v2/judging-tasks/${publicId}`, { token });
    expect(read.status).toBe(200);
    const task = read.body;
    expect(task).toMatchObject({ kind: 'session', status: 'pending', ranked_at: null });
    expect(task.ranking).toBeUndefined();
    // Blind: no analyst, work, target or photo id; no name of who submitted.
    for (const secret of [
      a1.userId,
      a1.analystId,
      a2.analystId,
      'Ada Viewer',
      toPublicId('session', workId),
      workId,
      trueTarget,
      toPublicId('target', trueTarget),
      taskingId,
      row.true_candidate_id,
      'true',
    ]) {
      expect(read.text).not.toContain(secret);
    }
    expect(task.submissions.map((s: any) => s.submission_id).sort()).toEqual(['A', 'B']);
    expect(Object.keys(task.submissions[0]).sort()).toEqual([
      'coordinates',
      'descriptors',
      'notes',
      'sketches',
      'submission_id',
    ]);
    // Five candidates; the truth has two photos, decoys one: each shows one.
    expect(task.candidates).toHaveLength(5);
    for (const candidate of task.candidates) {
      expect(Object.keys(candidate).sort()).toEqual([
        'candidate_id',
        'coordinates',
        'description',
        'descriptors',
        'photos',
      ]);
      expect(candidate.photos).toHaveLength(1);
      expect(candidate.photos[0].url).toBe(
        `${stack.baseUrl}/v2/judging-tasks/${publicId}/candidates/${candidate.candidate_id}/photos/1`,
      );
      expect(candidate.coordinates).not.toBeNull();
    }
    const ids = task.candidates.map((c: any) => parsePublicId('candidate', c.candidate_id));
    expect(ids).toContain(row.true_candidate_id);

    // Photos and sketches are served through the task, inert.
    const photo = await fetch(task.candidates[0].photos[0].url, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/png');
    expect(photo.headers.get('x-content-type-options')).toBe('nosniff');
    expect(photo.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await photo.arrayBuffer())).toEqual(PNG);
    const sketchUrl = task.submissions.flatMap((s: any) => s.sketches)[0].url as string;
    expect(sketchUrl).toMatch(/\/v2\/judging-tasks\/jdg_\w+\/sketches\/skt_\w+$/);
    const sketch = await fetch(sketchUrl, { headers: { authorization: `Bearer ${token}` } });
    expect(sketch.status).toBe(200);
    expect(sketch.headers.get('content-type')).toBe('image/svg+xml');
    expect(sketch.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(
      (
        await client.get(
          `/v2/judging-tasks/${publicId}/candidates/${task.candidates[0].candidate_id}/photos/2`,
          { token },
        )
      ).status,
    ).toBe(404);

    // The ranking must be a permutation of the candidates.
    const pub = task.candidates.map((c: any) => c.candidate_id as string);
    const trueId = toPublicId('candidate', row.true_candidate_id);
    for (const ranking of [
      pub.slice(1),
      [...pub, pub[0]],
      [...pub.slice(1), toPublicId('candidate', randomUUID())],
      'not a list',
    ]) {
      const refused = await client.post(`/v2/judging-tasks/${publicId}/ranking`, {
        token,
        json: { ranking },
      });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error.details.field).toBe('ranking');
    }
    const ranking = [trueId, ...pub.filter((c: string) => c !== trueId)];
    const ranked = await client.post(`/v2/judging-tasks/${publicId}/ranking`, {
      token,
      json: { ranking },
    });
    expect(ranked.status, ranked.text).toBe(200);
    expect(ranked.body).toMatchObject({ status: 'ranked', ranking });
    expect(ranked.body.ranked_at).not.toBeNull();
    const again = await client.post(`/v2/judging-tasks/${publicId}/ranking`, {
      token,
      json: { ranking },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details.field).toBe('ranking');

    // One trial per analyst. Truth {bridge, water, metal} ("red paint" is no term);
    // Ada {water, bridge, cold}: overlap 2 → 2/3 and 2/3; Bo {mountain, stone}: 0 and 0.
    const trials = await sql.rows<any>(
      `SELECT user_id, hit, rank, set_size, saic_accuracy, saic_reliability, work_kind, modality
         FROM judged_trials WHERE judging_task_id = $1`,
      [id],
    );
    const byUser = new Map(trials.map((t) => [t.user_id, t]));
    expect(trials).toHaveLength(2);
    expect(byUser.get(a1.userId)).toMatchObject({
      hit: true,
      rank: 1,
      set_size: 5,
      work_kind: 'session',
      modality: 'visual',
    });
    expect(byUser.get(a1.userId).saic_accuracy).toBeCloseTo(2 / 3, 12);
    expect(byUser.get(a1.userId).saic_reliability).toBeCloseTo(2 / 3, 12);
    expect(byUser.get(a2.userId)).toMatchObject({
      hit: true,
      saic_accuracy: 0,
      saic_reliability: 0,
    });

    const events = await eventsOf(org.organizationId);
    expect(events.map((e) => e.type)).toEqual(['judging_task.created', 'judging_task.ranked']);
    expect(events[0]!.data).toMatchObject({
      judging_task_id: publicId,
      work_id: toPublicId('session', workId),
      kind: 'session',
      judge_id: judge.analystId,
      status: 'pending',
      candidate_count: 5,
      sequence: 1,
    });
    expect(events[1]!.data).toMatchObject({
      hit: true,
      true_rank: 1,
      status: 'ranked',
      sequence: 2,
    });

    const records = await stack.api
      .get(TrackRecords)
      .of(org.organizationId, [a1.userId, judge.userId]);
    // One trial of five: too few; chance prior.
    expect(records.get(a1.userId)).toMatchObject({
      trials: 1,
      hits: 1,
      evidence: 'prior',
      theta: 0.2,
      hitRate: { successes: 1, n: 1, baseline: 0.2, pValue: 0.2 },
    });
    expect(records.get(judge.userId)).toMatchObject({ trials: 0, hits: 0, saicAccuracy: null });
  });

  it('track records: hand-computed values over several trials, by kind and modality', async () => {
    const { org, tenant } = await team();
    const [viewer, judge] = [
      await addMember(stack, org, ['analyst']),
      await addMember(stack, org, ['judge']),
    ];
    await pool(tenant, 4);
    const caller = { ...tenant, userId: judge.userId, isAdmin: false };
    const judging = stack.api.get(JudgingService);
    // Five sessions of five candidates: hits, hits, hits, misses, misses; then one dowsing
    // query of two candidates (one decoy), a hit.
    const plan: { hit: boolean; decoys: number; kind: JudgedWork['kind'] }[] = [
      ...[true, true, true, false, false].map((hit) => ({
        hit,
        decoys: 4,
        kind: 'session' as const,
      })),
      { hit: true, decoys: 1, kind: 'dowsing' },
    ];
    for (const { hit, decoys, kind } of plan) {
      const { taskingId, workId } = await tasking(
        tenant,
        [{ member: viewer, descriptors: ['water'] }],
        {
          kind,
          modality: kind === 'dowsing' ? null : 'visual',
          decoyCount: decoys,
        },
      );
      const id = await open(tenant, taskingId, workId, {
        kind,
        decoyCount: decoys,
        truth: {
          description: 'A lake',
          descriptors: ['water', 'blue'],
          latitude: null,
          longitude: null,
        },
      });
      const task = (
        await sql.rows<any>(
          'SELECT candidates, true_candidate_id FROM judging_tasks WHERE id = $1',
          [id],
        )
      )[0];
      const others = task.candidates
        .map((c: any) => c.id)
        .filter((c: string) => c !== task.true_candidate_id);
      const order = hit ? [task.true_candidate_id, ...others] : [...others, task.true_candidate_id];
      await judging.rank(
        caller,
        toPublicId('judgingTask', id),
        order.map((c: string) => toPublicId('candidate', c)),
        null,
      );
    }
    const records = stack.api.get(TrackRecords);
    // Sessions: 3 of 5 at 1/5. P(X ≥ 3) = 0.0512 + 0.0064 + 0.00032 = 0.05792;
    // Wilson 0.230724–0.882379; θ = (3 + 0.4)/(5 + 2).
    const sessions = (
      await records.of(org.organizationId, [viewer.userId], { kind: 'session' })
    ).get(viewer.userId)!;
    expect(sessions).toMatchObject({ trials: 5, hits: 3, evidence: 'track_record' });
    expect(sessions.hitRate.pValue).toBeCloseTo(0.05792, 10);
    expect(sessions.hitRate.ciLow).toBeCloseTo(0.230724, 5);
    expect(sessions.hitRate.ciHigh).toBeCloseTo(0.882379, 5);
    expect(sessions.theta).toBeCloseTo(3.4 / 7, 10);
    // SAIC: truth {water, blue}, response {water}: accuracy 1/2, reliability 1, every trial.
    expect(sessions.saicAccuracy).toBeCloseTo(0.5, 6);
    expect(sessions.saicReliability).toBe(1);
    // All six: 4 hits; X = B + A, B ~ Bin(5, 1/5), A ~ Bernoulli(1/2):
    // P(X ≥ 4) = ½·P(B ≥ 3) + ½·P(B ≥ 4) = ½·0.05792 + ½·0.00672 = 0.03232; baseline (5·0.2 + 0.5)/6 = 0.25.
    const all = (await records.of(org.organizationId, [viewer.userId])).get(viewer.userId)!;
    expect(all).toMatchObject({ trials: 6, hits: 4 });
    expect(all.hitRate.pValue).toBeCloseTo(0.03232, 10);
    expect(all.hitRate.baseline).toBe(0.25);
    expect(all.theta).toBeCloseTo((4 + 0.5) / 8, 10);
    // Modality: null picks the dowsing query alone; 'visual' the sessions.
    const none = (await records.of(org.organizationId, [viewer.userId], { modality: null })).get(
      viewer.userId,
    )!;
    expect(none).toMatchObject({ trials: 1, hits: 1, evidence: 'prior' });
    const visual = (
      await records.of(org.organizationId, [viewer.userId], { modality: 'visual' })
    ).get(viewer.userId)!;
    expect(visual.trials).toBe(5);
    // Another organisation's records hold nothing of these trials.
    const other = await createOrganization(stack, client, 'live');
    expect(
      (await records.of(other.organizationId, [viewer.userId])).get(viewer.userId)!.trials,
    ).toBe(0);
  });

  it('never gives the task to a judge who worked on it; it waits until an eligible judge exists', async () => {
    const { org, tenant } = await team();
    const both = await addMember(stack, org, ['analyst', 'judge']);
    const other = await addMember(stack, org, ['analyst']);
    await pool(tenant, 4);
    const { taskingId, workId } = await tasking(tenant, [
      { member: both, descriptors: ['water'] },
      { member: other, descriptors: ['land'] },
    ]);
    const id = await open(tenant, taskingId, workId);
    expect(await taskRow(id)).toMatchObject({ status: 'awaiting_judge', judge_user_id: null });
    const [created] = await eventsOf(org.organizationId);
    expect(created!.data).toMatchObject({ status: 'awaiting_judge', judge_id: null });

    const judging = stack.api.get(JudgingService);
    expect(await judging.assignWaiting(org.organizationId, null)).toBe(0);
    const judge = await addMember(stack, org, ['judge']);
    expect(await judging.assignWaiting(org.organizationId, null)).toBe(1);
    expect(await taskRow(id)).toMatchObject({ status: 'pending', judge_user_id: judge.userId });
  });

  it('answers 409 naming decoy_count when the pool is too small, pointing at POST /v2/targets', async () => {
    const { org, tenant } = await team();
    const analyst = await addMember(stack, org, ['analyst']);
    const only = await addTarget(tenant, 'The one target', ['water']);
    await pool(tenant, 2);
    const judging = stack.api.get(JudgingService);
    await expect(judging.assertDecoysAvailable(tenant, 2, only)).resolves.toBeUndefined();
    await expect(judging.assertDecoysAvailable(tenant, 3, only)).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { field: 'decoy_count', issue: expect.stringContaining('POST /v2/targets') },
    });
    const { taskingId, workId } = await tasking(tenant, [{ member: analyst, descriptors: [] }]);
    await expect(open(tenant, taskingId, workId, { decoyCount: 4 })).rejects.toMatchObject({
      details: { field: 'decoy_count' },
    });
  });

  it('keeps tasks to their judge: another judge, another organisation 404; an admin reads but may not rank', async () => {
    const { org, tenant, codeClient } = await team();
    const analyst = await addMember(stack, org, ['analyst']);
    const judge = await addMember(stack, org, ['judge']);
    await pool(tenant, 4);
    const { taskingId, workId } = await tasking(tenant, [
      { member: analyst, descriptors: ['water'] },
    ]);
    const publicId = toPublicId('judgingTask', await open(tenant, taskingId, workId));
    const judgeToken = await memberToken(stack, codeClient, judge);
    const task = (await client.get(`/v2/judging-tasks/${publicId}`, { token: judgeToken })).body;
    const ranking = { ranking: task.candidates.map((c: any) => c.candidate_id) };

    const second = await addMember(stack, org, ['judge']);
    const secondToken = await memberToken(stack, codeClient, second);
    const admin = await addMember(stack, org, ['admin']);
    const adminToken = await memberToken(stack, codeClient, admin);
    const elsewhere = await team();
    const outsider = await addMember(stack, elsewhere.org, ['judge', 'admin']);
    const outsiderToken = await memberToken(stack, elsewhere.codeClient, outsider);
    const photo = `/v2/judging-tasks/${publicId}/candidates/${task.candidates[0].candidate_id}/photos/1`;

    for (const token of [secondToken, outsiderToken]) {
      expect((await client.get(`/v2/judging-tasks/${publicId}`, { token })).status).toBe(404);
      expect((await client.get(photo, { token })).status).toBe(404);
      expect(
        (await client.post(`/v2/judging-tasks/${publicId}/ranking`, { token, json: ranking }))
          .status,
      ).toBe(404);
      expect((await client.get('/v2/judging-tasks', { token })).body.data).toEqual([]);
    }
    expect((await client.get(`/v2/judging-tasks/${publicId}`, { token: adminToken })).status).toBe(
      200,
    );
    const refused = await client.post(`/v2/judging-tasks/${publicId}/ranking`, {
      token: adminToken,
      json: ranking,
    });
    expect(refused.status).toBe(403);
    // The organisation's own client acts for no person.
    expect((await client.get('/v2/judging-tasks', { token: await org.token() })).status).toBe(403);
    expect(
      (await client.get(`/v2/judging-tasks/${publicId}`, { apiKey: await org.apiKey() })).status,
    ).toBe(403);
    // Still the judge's to rank.
    expect(
      (
        await client.post(`/v2/judging-tasks/${publicId}/ranking`, {
          token: judgeToken,
          json: ranking,
        })
      ).status,
    ).toBe(200);
  });
});
