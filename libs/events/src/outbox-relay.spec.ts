import { describe, expect, it } from 'vitest';
import type { AppSettings } from '#config';
import type { Sql, Transaction } from '#database';
import { QUEUE, type JobProducer, type QueuedJob, type RedisService } from '#queue';
import { EventJobs } from './event-jobs.js';
import { EventEntity } from './event.entity.js';
import type { EventsRepository } from './events.repository.js';
import { OutboxFanOuts } from './outbox-fan-out.js';
import { OutboxRelay, type RelayedEvent } from './outbox-relay.js';

const TENANT = { organizationId: '0193c0de-0000-7000-8000-0000000000aa', mode: 'live' } as const;

function event(id: string, type: string, data: Record<string, unknown>): EventEntity {
  return Object.assign(new EventEntity(), {
    ...TENANT,
    id,
    type,
    data,
    requestId: null,
    pendingWebhooks: 0,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    targetWebhookId: null,
    relayedAt: null,
  });
}

/** A relay over fakes: one batch of `rows` to claim, a webhook subscribed to everything (`*`). */
function relayOf(rows: EventEntity[]) {
  const tx = {} as Transaction;
  const sql = { transaction: (work: (t: Transaction) => unknown) => work(tx) } as unknown as Sql;
  const marked: Pick<EventEntity, 'id' | 'pendingWebhooks'>[] = [];
  let claimed = false;
  const events = {
    claimUnrelayedAcrossTenants: async () => (claimed ? [] : ((claimed = true), rows)),
    markRelayedAcrossTenants: async (_tx: Transaction, relayed: EventEntity[]) => {
      marked.push(...relayed.map(({ id, pendingWebhooks }) => ({ id, pendingWebhooks })));
    },
  } as unknown as EventsRepository;
  const delivered: string[] = [];
  const fanOuts = new OutboxFanOuts();
  fanOuts.register({
    fanOut: async (_tx, batch) => {
      delivered.push(...batch.map((e) => e.type));
      return new Map(batch.map((e) => [e.id, 1]));
    },
  });
  const queued: QueuedJob[] = [];
  const jobs = { addAll: async (added: QueuedJob[]) => void queued.push(...added) };
  const published: RelayedEvent[] = [];
  const pipeline = {
    publish: (_channel: string, message: string) =>
      void published.push(JSON.parse(message) as RelayedEvent),
    exec: async () => [],
  };
  const redis = { client: { pipeline: () => pipeline } } as unknown as RedisService;
  const eventJobs = new EventJobs();
  eventJobs.on('internal.report_requested', (e) => ({
    queue: QUEUE.reports,
    name: 'build',
    data: { reportId: 'r', ...TENANT, requestId: null },
    options: { jobId: String(e.data.report_id) },
  }));
  const relay = new OutboxRelay(
    sql,
    events,
    jobs as unknown as JobProducer,
    redis,
    { databaseUrl: 'postgres://unused', redisPrefix: 'sas' } as AppSettings,
    fanOuts,
    eventJobs,
  );
  return { relay, delivered, queued, published, marked };
}

describe('OutboxRelay', () => {
  it('turns an internal event into its job only: no webhook delivery, no live publish', async () => {
    const { relay, delivered, queued, published, marked } = relayOf([
      event('e1', 'report.completed', { report_id: 'rpt_a' }),
      event('e2', 'internal.report_requested', { report_id: 'rpt_b' }),
    ]);

    expect(await relay.drain()).toBe(2);

    expect(delivered).toEqual(['report.completed']);
    expect(published.map((p) => p.event.type)).toEqual(['report.completed']);
    expect(queued.map((job) => [job.queue, job.name, job.options.jobId])).toEqual([
      ['reports', 'build', 'rpt_b'],
    ]);
    // Both leave the outbox; only the announced one waits on a webhook.
    expect(marked).toEqual([
      { id: 'e1', pendingWebhooks: 1 },
      { id: 'e2', pendingWebhooks: 0 },
    ]);
  });
});
