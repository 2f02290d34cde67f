import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '#common';
import { runMigrations } from '#database';
import { SessionsService } from '#sessions';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startReplicatedCluster, type PrivateReplicatedCluster } from './support/pg-replica.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Read replicas (docs/scaling-postgres.md) against a real streaming replica:
 * a private primary and two `pg_basebackup -R` standbys of it, so replay can
 * be paused and standbys stopped without touching the shared server. The
 * API's DATABASE_URL is the private primary, DATABASE_REPLICA_URLS its two
 * standbys. A session written in-process stands for a write the reader did
 * not make through the API (the worker's are such writes): no read-your-
 * writes mark, so while replay is paused a list served by the replica does
 * not show it.
 */
const DATABASE = 'sas_replicas';

let cluster: PrivateReplicatedCluster;
/** Replicas may lag a minute: while replay is paused they keep serving (stale) lists. */
let stack: Stack;
/** Replicas may lag half a second: a paused replica is soon skipped. */
let strict: Stack;
let client: TestClient;
let strictClient: TestClient;

beforeAll(async () => {
  cluster = await startReplicatedCluster({ replicas: 2 });
  await runMigrations({ url: cluster.primaryUrl(DATABASE) });
  await cluster.caughtUp();
  const env = (maxLagMs: number) => ({
    DATABASE_URL: cluster.primaryUrl(DATABASE),
    DATABASE_REPLICA_URLS: `${cluster.replicaUrl(DATABASE, 0)},${cluster.replicaUrl(DATABASE, 1)}`,
    DATABASE_REPLICA_MAX_LAG_MS: String(maxLagMs),
  });
  stack = await startStack({ worker: false, env: env(60_000) });
  strict = await startStack({ worker: false, env: env(500) });
  client = await TestClient.for(stack);
  strictClient = await TestClient.for(strict);
});

afterAll(async () => {
  await strict?.close();
  await stack?.close();
  await cluster?.close();
});

/** A session written in-process, as the worker writes: no read-your-writes mark for the tenant. */
async function quietSession(tenant: Tenant, target: string): Promise<void> {
  await stack.api.get(SessionsService).create(
    tenant,
    {
      type: 'remote_viewing',
      target,
      modality: null,
      durationMinutes: 30,
      privacyLevel: 'public',
    },
    null,
  );
}

/** How many sessions the tenant's version 2 list shows. */
async function listed(on: TestClient, token: string): Promise<number> {
  const response = await on.get('/v2/sessions?per_page=100', { token });
  expect(response.status).toBe(200);
  return (response.body.data as unknown[]).length;
}

async function v1Total(on: TestClient, token: string): Promise<number> {
  const response = await on.get('/v1/sessions', { token });
  expect(response.status).toBe(200);
  return response.body.total as number;
}

/** Sessions of the last day on the tenant's analytics dashboard. */
async function dashboardSessions(on: TestClient, token: string): Promise<number> {
  const response = await on.get('/v2/analytics/dashboard', { token });
  expect(response.status).toBe(200);
  return (response.body.work as { kind: string; counts: { last_24h: number } }[])
    .filter((work) => work.kind === 'session')
    .reduce((sum, work) => sum + work.counts.last_24h, 0);
}

/** Waits until the replica has replayed everything and the tenant's lists show `count` sessions. */
async function caughtUpTo(token: string, count: number): Promise<void> {
  await cluster.caughtUp();
  await waitFor(async () => ((await listed(client, token)) === count ? true : null));
}

/** Both standbys at once: pauseReplay, resumeReplay, stopReplica or startReplica. */
async function everyReplica(action: (replica: number) => Promise<void>): Promise<void> {
  await Promise.all([action(0), action(1)]);
}

describe('read replicas', () => {
  it('serve list reads (stale while replay is paused), and the writer reads its own write at once', async () => {
    const reader = await createOrganization(stack, client);
    const writer = await createOrganization(stack, client);
    const readerTenant: Tenant = { organizationId: reader.organizationId, mode: 'live' };
    // An API key: both APIs accept it (a token is checked against the issuing API's signing key).
    const [readerToken, writerToken] = [await reader.apiKey(), await writer.token()];
    await quietSession(readerTenant, 'Before the pause');
    await caughtUpTo(readerToken, 1);

    await everyReplica((replica) => cluster.pauseReplay(replica));
    try {
      await quietSession(readerTenant, 'Written while paused');
      const written = await client.post('/v2/sessions/create', {
        token: writerToken,
        json: { type: 'remote_viewing', target: 'My own write', privacy_level: 'public' },
      });
      expect(written.status).toBe(201);

      // The writer's lists come from the primary: its own write is there at once (v1 and v2).
      expect(await listed(client, writerToken)).toBe(1);
      expect(await v1Total(client, writerToken)).toBe(1);
      // …though neither replica has replayed it.
      for (const replica of [0, 1]) {
        const onReplica = await cluster.query<{ count: number }>(
          { replica },
          `SELECT count(*)::int AS count FROM sessions WHERE target = 'My own write'`,
          DATABASE,
        );
        expect(onReplica[0]!.count).toBe(0);
      }

      // The reader made no write: its lists come from the paused replica, without the new session.
      // Polled: on a loaded machine a replica's 1 s health check may time out, and until its
      // next check (200 ms on) reads go to the primary, as they should.
      await expect.poll(() => listed(client, readerToken)).toBe(1);
      await expect.poll(() => v1Total(client, readerToken)).toBe(1);
      // So does its analytics dashboard.
      await expect.poll(() => dashboardSessions(client, readerToken)).toBe(1);
      // …read by the API's own replica pools.
      let readers = 0;
      for (const replica of [0, 1]) {
        const [{ count }] = await cluster.query<{ count: number }>(
          { replica },
          `SELECT count(*)::int AS count FROM pg_stat_activity
            WHERE application_name = 'session-analysis-service-reads'`,
        );
        readers += count;
      }
      expect(readers).toBeGreaterThan(0);

      // With a half-second lag bound, the same paused replica is skipped: the primary answers.
      await waitFor(async () => ((await listed(strictClient, readerToken)) === 2 ? true : null));
      expect(await dashboardSessions(strictClient, readerToken)).toBe(2);
      // The lenient API still reads the replica.
      await expect.poll(() => listed(client, readerToken)).toBe(1);
      await expect.poll(() => dashboardSessions(client, readerToken)).toBe(1);
    } finally {
      await everyReplica((replica) => cluster.resumeReplay(replica));
    }
    await caughtUpTo(readerToken, 2);
  });

  it('take turns: one paused, one caught up, and consecutive lists alternate between them', async () => {
    const reader = await createOrganization(stack, client);
    const tenant: Tenant = { organizationId: reader.organizationId, mode: 'live' };
    const token = await reader.token();
    await quietSession(tenant, 'Seen by both');
    await caughtUpTo(token, 1);

    await cluster.pauseReplay(0);
    try {
      await quietSession(tenant, 'Replica 1 only');
      await cluster.caughtUp();
      // Round robin: replica 0 answers 1, replica 1 answers 2, in turn.
      await waitFor(async () => {
        const counts: number[] = [];
        for (let read = 0; read < 6; read++) counts.push(await listed(client, token));
        const alternating = counts.every((count, at) => at === 0 || count !== counts[at - 1]);
        return alternating && counts.includes(1) && counts.includes(2) ? true : null;
      });
    } finally {
      await cluster.resumeReplay(0);
    }
    await caughtUpTo(token, 2);
  });

  it('answer from the primary when the replicas are stopped, and serve again once they are back', async () => {
    const reader = await createOrganization(stack, client);
    const tenant: Tenant = { organizationId: reader.organizationId, mode: 'live' };
    const token = await reader.token();
    await quietSession(tenant, 'First');
    await caughtUpTo(token, 1);

    await everyReplica((replica) => cluster.stopReplica(replica));
    try {
      await quietSession(tenant, 'Second');
      // Every read succeeds, fresh: the first may hit a stopped replica's pool and fall back.
      for (let read = 0; read < 10; read++) {
        expect(await listed(client, token)).toBe(2);
        expect(await v1Total(client, token)).toBe(2);
      }
    } finally {
      await everyReplica((replica) => cluster.startReplica(replica));
    }

    await caughtUpTo(token, 2);
    await everyReplica((replica) => cluster.pauseReplay(replica));
    try {
      await quietSession(tenant, 'Third');
      // Back in turn: the paused replica serves the (stale) list again.
      await waitFor(async () => ((await listed(client, token)) === 2 ? true : null));
    } finally {
      await everyReplica((replica) => cluster.resumeReplay(replica));
    }
    await caughtUpTo(token, 3);
  });
});
