import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Tasking rules and deadlines of analyst work (issue 18): who gets picked,
 * what the create request may ask, declining, cancelling, and deadlines on a
 * scaled clock (ANALYST_CLOCK_SCALE = 60: a 5-minute deadline passes in 5 s).
 */

const CLOCK_SCALE = 60;
let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack({
    env: { ANALYST_CLOCK_SCALE: String(CLOCK_SCALE), ANALYST_DEADLINE_SWEEP_MS: '200' },
  });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});

afterAll(async () => {
  await stack?.close();
});

type Analyst = TestMember & { token: string };

async function organisation(analysts: number) {
  const org = await createOrganization(stack, client);
  const codeClient = await memberClient(client, org);
  const people: Analyst[] = [];
  for (let i = 0; i < analysts; i += 1) {
    const member = await addMember(stack, org, ['analyst'], `Analyst ${i}`);
    people.push({ ...member, token: await memberToken(stack, codeClient, member) });
  }
  return { org, admin: await org.token(), analysts: people, codeClient };
}

function create(token: string, body: Record<string, unknown>) {
  return client.post('/v2/sessions/create', {
    token,
    json: { type: 'remote_viewing', target: 'A lighthouse on a cliff', ...body },
  });
}

async function assignmentsOf(analyst: Analyst) {
  const response = await client.get('/v2/assignments', { token: analyst.token });
  expect(response.status).toBe(200);
  return response.body.data as Record<string, unknown>[];
}

async function session(token: string, id: string) {
  return (await client.get(`/v2/sessions/${id}`, { token })).body;
}

describe('choosing the engine and the analysts', () => {
  it('defaults to analysts when the organisation has one, and to the simulator when it has none', async () => {
    const none = await createOrganization(stack, client);
    const simulated = await create(await none.token(), {});
    expect(simulated.body.metadata.engine).toBe('simulated');

    const { admin } = await organisation(1);
    const tasked = await create(admin, {});
    expect(tasked.status).toBe(201);
    expect(tasked.body.metadata.engine).toBe('analyst');
    const chosen = await create(admin, { engine: 'simulated' });
    expect(chosen.body.metadata.engine).toBe('simulated');
  });

  it('runs the sandbox on the simulator whatever the request asks', async () => {
    const org: TestOrganization = await createOrganization(stack, client, 'test');
    await addMember(stack, org, ['analyst']);
    const created = await create(await org.token(), { engine: 'analyst', analyst_count: 2 });
    expect(created.status).toBe(201);
    expect(created.body.metadata.engine).toBe('simulated');
  });

  it('picks the least loaded analysts, never one twice, and refuses more than there are', async () => {
    const { admin, analysts } = await organisation(3);
    const [busy] = analysts as [Analyst];
    await create(admin, { engine: 'analyst', analyst_ids: [busy.analystId] });
    // Two more: the two analysts without work get them, not the busy one.
    await create(admin, { engine: 'analyst', analyst_count: 2 });
    expect(await assignmentsOf(busy)).toHaveLength(1);
    for (const other of analysts.slice(1)) expect(await assignmentsOf(other)).toHaveLength(1);

    const tooMany = await create(admin, { engine: 'analyst', analyst_count: 4 });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error.details.field).toBe('analyst_count');
    expect(tooMany.body.error.details.issue).toContain('at most 3');
  });

  it('names the field of every request it cannot task', async () => {
    const { admin, analysts } = await organisation(2);
    const [a] = analysts as [Analyst];
    const expectField = async (body: Record<string, unknown>, status: number, field: string) => {
      const response = await create(admin, { engine: 'analyst', ...body });
      expect(response.status, response.text).toBe(status);
      expect(response.body.error.details.field).toBe(field);
    };
    await expectField({ analyst_ids: ['analyst_nope'] }, 400, 'analyst_ids[0]');
    await expectField(
      { analyst_count: 2, analyst_ids: [a.analystId, a.analystId] },
      400,
      'analyst_ids[1]',
    );
    await expectField(
      { analyst_count: 1, analyst_ids: analysts.map((x) => x.analystId) },
      400,
      'analyst_ids',
    );
    const stranger = await organisation(1);
    await expectField({ analyst_ids: [stranger.analysts[0]!.analystId] }, 400, 'analyst_ids[0]');
    await expectField({ judging: true }, 409, 'decoy_count');
    await expectField({ target_id: 'tgt_01jh2x7v4ke8rbk3a8y0v0d7qz' }, 400, 'target_id');
    await expectField({ analyst_count: 0 }, 400, 'analyst_count');
    await expectField({ decoy_count: 10 }, 400, 'decoy_count');
    await expectField({ engine: 'robot' }, 400, 'engine');
    // Nothing was tasked by the refused requests.
    expect(await assignmentsOf(a)).toEqual([]);
  });
});

describe('who may submit', () => {
  it('takes a submission only from an analyst assigned to the work', async () => {
    const { org, admin, analysts, codeClient } = await organisation(2);
    const [assigned, other] = analysts as [Analyst, Analyst];
    const created = await create(admin, { engine: 'analyst', analyst_ids: [assigned.analystId] });
    const path = `/v2/sessions/${created.body.session_id}/results`;
    const body = { json: { descriptors: ['stone'] } };
    expect((await client.post(path, { ...body, token: admin })).status).toBe(403);
    expect((await client.post(path, { ...body, apiKey: await org.apiKey() })).status).toBe(403);
    expect((await client.post(path, { ...body, token: other.token })).status).toBe(404);
    const adminPerson = await addMember(stack, org, ['admin']);
    const adminToken = await memberToken(stack, codeClient, adminPerson);
    expect((await client.post(path, { ...body, token: adminToken })).status).toBe(404);
    const invalid = await client.post(path, {
      token: assigned.token,
      json: { descriptors: 'stone' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details.field).toBe('descriptors');
    const unknownField = await client.post(path, {
      token: assigned.token,
      json: { descriptors: [], coordinates: { latitude: 91, longitude: 0 } },
    });
    expect(unknownField.body.error.details.field).toBe('coordinates.latitude');
    expect((await client.post(path, { ...body, token: assigned.token })).status).toBe(200);
  });

  it('replays a multipart submission sent again with its Idempotency-Key, and refuses a changed one', async () => {
    const { admin, analysts } = await organisation(2);
    const [a] = analysts as [Analyst];
    const created = await create(admin, { engine: 'analyst', analyst_count: 2 });
    const form = (notes: string) => {
      const data = new FormData();
      data.append('descriptors', 'stone');
      data.append('notes', notes);
      data.append(
        'sketches',
        new Blob(['<svg xmlns="http://www.w3.org/2000/svg"><rect width="3" height="3"/></svg>']),
        's.svg',
      );
      return new Request('http://multipart.invalid/', { method: 'POST', body: data });
    };
    const send = async (request: Request) =>
      client.post(`/v2/sessions/${created.body.session_id}/results`, {
        token: a.token,
        headers: { 'idempotency-key': 'submission-1' },
        raw: {
          body: Buffer.from(await request.arrayBuffer()),
          contentType: request.headers.get('content-type')!,
        },
      });
    const first = await send(form('Grey'));
    expect(first.status).toBe(200);
    // The same form again: FormData picks a new boundary, the content is what counts.
    const again = await send(form('Grey'));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const changed = await send(form('Green'));
    expect(changed.status).toBe(409);
  });
});

describe('declining and cancelling', () => {
  it('gives a declined assignment to a free analyst, and goes on with fewer when nobody is', async () => {
    const { admin, analysts } = await organisation(3);
    const [a, b, c] = analysts as [Analyst, Analyst, Analyst];
    const created = await create(admin, {
      engine: 'analyst',
      analyst_count: 2,
      analyst_ids: [a.analystId, b.analystId],
    });
    const sessionId = created.body.session_id as string;
    const [mine] = await assignmentsOf(a);
    const declined = await client.post(`/v2/assignments/${mine!.assignment_id}/decline`, {
      token: a.token,
      json: { reason: 'Away this week' },
    });
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ status: 'declined', target: null });
    const [replacement] = await assignmentsOf(c);
    expect(replacement).toMatchObject({ work_id: sessionId, status: 'assigned' });
    expect(replacement!.deadline).toBe(mine!.deadline);
    const again = await client.post(`/v2/assignments/${mine!.assignment_id}/decline`, {
      token: a.token,
      json: {},
    });
    expect(again.status).toBe(409);

    // c declines too: nobody is free (a declined, b is on it), so b alone finishes it.
    await client.post(`/v2/assignments/${replacement!.assignment_id}/decline`, {
      token: c.token,
      json: {},
    });
    const submitted = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: b.token,
      json: { descriptors: ['light', 'tall'], coordinates: { latitude: 50, longitude: -5 } },
    });
    expect(submitted.status).toBe(200);
    const done = await session(admin, sessionId);
    expect(done.status).toBe('completed');
    expect(done.results.collaborative_insights).toHaveLength(1);
    expect(done.analyst_id ?? done.metadata.analyst_id).toBe(b.analystId);
  });

  it('closes the work at once when the last analyst who had yet to submit declines and nobody is free', async () => {
    const { admin, analysts } = await organisation(2);
    const [a, b] = analysts as [Analyst, Analyst];
    const created = await create(admin, { engine: 'analyst', analyst_count: 2 });
    const sessionId = created.body.session_id as string;
    const submitted = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: a.token,
      json: { descriptors: ['light'] },
    });
    expect(submitted.status).toBe(200);
    const [theirs] = await assignmentsOf(b);
    await client.post(`/v2/assignments/${theirs!.assignment_id}/decline`, {
      token: b.token,
      json: {},
    });
    // The deadline is 30 minutes away (30 s on this clock's scale ÷ 60): the sweep closes it first.
    const completed = await waitFor(async () => {
      const current = await session(admin, sessionId);
      return current.status === 'completed' ? current : null;
    });
    expect(completed.results.collaborative_insights).toHaveLength(1);
    expect(completed.results.descriptors).toEqual(['light']);
  });

  it('cancels the assignments of a cancelled session and forgets those of a deleted one', async () => {
    const { org, admin, analysts } = await organisation(1);
    const [a] = analysts as [Analyst];
    const first = await create(admin, { engine: 'analyst' });
    const cancelled = await client.post(`/v1/sessions/${first.body.session_id}/cancel`, {
      token: admin,
    });
    expect(cancelled.status).toBe(200);
    const [assignment] = await assignmentsOf(a);
    expect(assignment).toMatchObject({ status: 'cancelled', target: 'A lighthouse on a cliff' });

    const second = await create(admin, { engine: 'analyst' });
    expect(await assignmentsOf(a)).toHaveLength(2);
    const merged = await client.post(`/v2/sessions/${second.body.session_id}/merge`, {
      token: admin,
      json: { session_ids: [first.body.session_id] },
    });
    expect(merged.status).toBe(409);
    expect(merged.body.error.details.field).toBe('session_ids');
    const deleted = await client.delete(`/v1/sessions/${second.body.session_id}`, { token: admin });
    expect(deleted.status).toBe(204);
    expect(await assignmentsOf(a)).toHaveLength(1);
    const [{ count }] = await sql.rows<{ count: number }>(
      `SELECT count(*)::int AS count FROM work_taskings WHERE organization_id = $1`,
      [org.organizationId],
    );
    expect(count).toBe(1);
  });
});

describe('deadlines on the scaled clock', () => {
  it('sets the deadline duration_minutes ÷ ANALYST_CLOCK_SCALE after tasking', async () => {
    const { admin, analysts } = await organisation(1);
    const created = await create(admin, { engine: 'analyst', duration_minutes: 30 });
    const [assignment] = await assignmentsOf(analysts[0]!);
    const deadline = Date.parse(assignment!.deadline as string);
    const started = Date.parse(created.body.created_at ?? assignment!.created_at);
    expect(deadline - started).toBeGreaterThanOrEqual((30 * 60_000) / CLOCK_SCALE - 1_000);
    expect(deadline - started).toBeLessThanOrEqual((30 * 60_000) / CLOCK_SCALE + 1_000);
  });

  it('fails work nobody submitted with deadline_exceeded, and expires the assignments', async () => {
    const { admin, analysts } = await organisation(1);
    const [a] = analysts as [Analyst];
    const created = await create(admin, { engine: 'analyst', duration_minutes: 5 });
    const sessionId = created.body.session_id as string;
    const failed = await waitFor(async () => {
      const current = await session(admin, sessionId);
      return current.status === 'failed' ? current : null;
    });
    expect(failed.failure_reason ?? failed.metadata?.failure_reason).toBe('deadline_exceeded');
    const [assignment] = await assignmentsOf(a);
    expect(assignment).toMatchObject({ status: 'expired', target: 'A lighthouse on a cliff' });
    const late = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: a.token,
      json: { descriptors: ['late'] },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.details.field).toBe('deadline');
    const events = (await client.get('/v2/events?type=assignment.expired', { token: admin })).body
      .data as { data: { work_id: string } }[];
    expect(events.map((event) => event.data.work_id)).toEqual([sessionId]);
  });

  it('completes at the deadline with what was submitted', async () => {
    const { admin, analysts } = await organisation(2);
    const [a, b] = analysts as [Analyst, Analyst];
    const created = await create(admin, { engine: 'analyst', analyst_count: 2 });
    const sessionId = created.body.session_id as string;
    const submitted = await client.post(`/v2/sessions/${sessionId}/results`, {
      token: a.token,
      json: { descriptors: ['light'], coordinates: { latitude: 50.1, longitude: -5.2 } },
    });
    expect(submitted.status).toBe(200);
    // The deadline comes when it comes (30 min ÷ 60 = 30 s); bring it forward rather than wait.
    const workId = parsePublicId('session', sessionId);
    await sql.rows(
      `UPDATE work_taskings SET deadline = now() WHERE work_kind = 'session' AND work_id = $1`,
      [workId],
    );
    await sql.rows(
      `UPDATE assignments SET deadline = now() WHERE tasking_id =
         (SELECT id FROM work_taskings WHERE work_kind = 'session' AND work_id = $1)`,
      [workId],
    );
    const completed = await waitFor(async () => {
      const current = await session(admin, sessionId);
      return current.status === 'completed' ? current : null;
    });
    expect(completed.results.coordinates).toMatchObject({ latitude: 50.1, longitude: -5.2 });
    expect(completed.results.collaborative_insights).toHaveLength(1);
    const [mine] = await assignmentsOf(a);
    const [theirs] = await assignmentsOf(b);
    expect(mine).toMatchObject({ status: 'completed' });
    expect(theirs).toMatchObject({ status: 'expired' });
  });
});
