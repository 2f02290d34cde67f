import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEnvelope } from '#events';
import { EventEntity } from '#events';
import { parsePublicId } from '#common';
import type { AppSettings } from '#config';
import { QUEUE, RedisDataLoss, RedisService, type DispatchedEvent, type JobData } from '#queue';
import { createWorker } from '../apps/worker/src/worker.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { testRedisPrefix } from './support/scope.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;

// The API alone: workers are started by the tests, to show what survives their absence.
beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(() => stack?.close());

async function eventsOf(sessionId: string): Promise<EventEntity[]> {
  return stack.api
    .get(DataSource)
    .getRepository(EventEntity)
    .createQueryBuilder('e')
    .where("e.data->>'session_id' = :sessionId", { sessionId })
    .orderBy('e.created_at')
    .addOrderBy('e.id')
    .getMany();
}

describe('transactional outbox', () => {
  it('writes session.created with the session, and nothing is lost while no worker runs', async () => {
    const created = await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'outbox check' },
      headers: { 'x-request-id': 'req_01m82sfbpbenftg57hv349pfkd' },
    });
    const id = created.body.session_id;
    const [event] = await eventsOf(id);
    expect(event).toMatchObject({
      type: 'session.created',
      relayedAt: null,
      requestId: 'req_01m82sfbpbenftg57hv349pfkd',
      organizationId: org.organizationId,
      mode: 'live',
    });
    expect(toEnvelope(event!)).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      type: 'session.created',
      created_at: expect.any(String),
      data: {
        session_id: id,
        type: 'remote_viewing',
        status: 'initiated',
        created_at: created.body.created_at,
        estimated_completion: created.body.estimated_completion,
        sequence: 1,
      },
      livemode: true,
      pending_webhooks: 0,
    });

    // A worker that starts later relays the waiting event and runs the session to the end.
    const worker = await createWorker(stack.settings);
    try {
      const status = await waitFor(async () => {
        const read = await client.get(`/v1/sessions/${id}`, { token });
        return read.body.status === 'completed' ? read.body : null;
      });
      expect(status.progress).toBe(100);
      // Relayed in order by the worker (so wait while it still runs: the last event is
      // committed with the session's completion, and relayed a moment later).
      await waitFor(async () =>
        (await eventsOf(id)).every((e) => e.relayedAt !== null) ? true : null,
      );
    } finally {
      await worker.close();
    }
    // The relay queued the session's run itself, under the session's id: no dispatch job.
    const [sessions, dispatches] = [QUEUE.sessions, QUEUE.events].map(
      (name) =>
        new Queue(name, {
          connection: { url: stack.settings.redisUrl },
          prefix: testRedisPrefix(),
        }),
    );
    try {
      const run = await sessions!.getJob(id);
      expect(run).toMatchObject({
        name: 'run',
        data: {
          organizationId: org.organizationId,
          mode: 'live',
          requestId: 'req_01m82sfbpbenftg57hv349pfkd',
        },
      });
      expect(run!.data.sessionId).toBe(parsePublicId('session', id));
      expect(Object.values(await dispatches!.getJobCounts()).every((count) => count === 0)).toBe(
        true,
      );
    } finally {
      await Promise.all([sessions!.close(), dispatches!.close()]);
    }

    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual([
      'session.created',
      'session.started',
      ...Array.from({ length: 10 }, () => 'session.progress_updated'),
      'session.completed',
    ]);
    expect(events.map((e) => e.data.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(
      events.filter((e) => e.type === 'session.progress_updated').map((e) => e.data.progress),
    ).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    const completed = events.at(-1)!.data;
    expect(completed).toMatchObject({
      session_id: id,
      type: 'remote_viewing',
      target: 'outbox check',
      status: 'completed',
      duration_minutes: 30,
    });
    expect(completed.results.sketches[0]).toMatch(
      new RegExp(`^${stack.baseUrl}/v1/sessions/${id}/sketches/\\d+\\.svg$`),
    );
    expect(Object.keys(completed.results.coordinates)).toEqual(['latitude', 'longitude']);
    // Every event carries the request id of the call that caused it.
    expect(new Set(events.map((e) => e.requestId))).toEqual(
      new Set(['req_01m82sfbpbenftg57hv349pfkd']),
    );
  });

  it('runs a session once even when two workers relay and process at the same time', async () => {
    const created = await client.post('/v1/sessions', {
      token,
      json: { type: 'dowsing', target: 'two workers' },
    });
    const workers = await Promise.all([createWorker(stack.settings), createWorker(stack.settings)]);
    try {
      await waitFor(async () =>
        (await client.get(`/v1/sessions/${created.body.session_id}`, { token })).body.status ===
        'completed'
          ? true
          : null,
      );
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
    const types = (await eventsOf(created.body.session_id)).map((e) => e.type);
    expect(types.filter((t) => t === 'session.started')).toHaveLength(1);
    expect(types.filter((t) => t === 'session.completed')).toHaveLength(1);
    expect(types.filter((t) => t === 'session.progress_updated')).toHaveLength(10);
    expect(parsePublicId('session', created.body.session_id)).not.toBeNull();
  });

  it('lets an in-flight session finish when the worker shuts down gracefully', async () => {
    const worker = await createWorker(stack.settings);
    const created = await client.post('/v1/sessions', {
      token,
      json: { type: 'automatic_writing', target: 'graceful stop' },
    });
    await waitFor(async () =>
      (await client.get(`/v1/sessions/${created.body.session_id}`, { token })).body.status ===
      'in_progress'
        ? true
        : null,
    );
    await worker.close();
    const status = (await client.get(`/v1/sessions/${created.body.session_id}`, { token })).body;
    expect(status).toMatchObject({ status: 'completed', progress: 100 });
  });

  it('runs the dispatch jobs earlier versions queued: the event as carried, reading back only one queued without it', async () => {
    const create = async (target: string) =>
      (await client.post('/v1/sessions', { token, json: { type: 'dowsing', target } })).body;
    const carried = await create('carried in its job');
    const bare = await create('queued before events were carried');
    // The events are gone from the log (as retention would take them) before any worker runs,
    // and each session's job is queued by hand: one carrying its event, one naming it only.
    const [carriedEvent] = await eventsOf(carried.session_id);
    const [bareEvent] = await eventsOf(bare.session_id);
    await stack.api
      .get(DataSource)
      .query('DELETE FROM events WHERE id = ANY($1::uuid[])', [[carriedEvent!.id, bareEvent!.id]]);
    // Redis is marked as seen, so the worker does not take its start for a loss of Redis's data
    // and put back the job of every session that has none (recovery would start the bare one).
    const redis = new RedisService(stack.settings as AppSettings);
    await new RedisDataLoss(redis, stack.settings as AppSettings).markersWereGone();
    await redis.onApplicationShutdown();
    const events = new Queue<JobData<'events', 'dispatch'>>(QUEUE.events, {
      connection: { url: stack.settings.redisUrl },
      prefix: testRedisPrefix(),
    });
    const worker = await createWorker(stack.settings);
    try {
      const bareJob = await events.add(
        'dispatch',
        { eventId: bareEvent!.id, requestId: null },
        { jobId: toEnvelope(bareEvent!).id },
      );
      await events.add(
        'dispatch',
        { eventId: carriedEvent!.id, requestId: null, event: carriedBy(carriedEvent!) },
        { jobId: toEnvelope(carriedEvent!).id },
      );
      await waitFor(async () =>
        (await client.get(`/v1/sessions/${carried.session_id}`, { token })).body.status ===
        'completed'
          ? true
          : null,
      );
      // The bare job read its event back, found none, and started nothing.
      await waitFor(async () => ((await bareJob.isCompleted()) ? true : null));
      const untouched = await client.get(`/v1/sessions/${bare.session_id}`, { token });
      expect(untouched.body.status).toBe(bare.status);
    } finally {
      await worker.close();
      await events.close();
    }
  });
});

/** An event as an earlier version's dispatch job carried it. */
function carriedBy(event: EventEntity): DispatchedEvent {
  return {
    id: event.id,
    organizationId: event.organizationId,
    mode: event.mode,
    type: event.type,
    data: event.data,
    requestId: event.requestId,
    createdAt: event.createdAt.toISOString(),
  };
}
