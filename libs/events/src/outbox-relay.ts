import {
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Mode } from '#common';
import { AppSettings } from '#config';
import { Sql, WakeUpPump } from '#database';
import { JobProducer, RedisService } from '#queue';
import { toEnvelope, type EventEnvelope } from './envelope.js';
import { EventJobs } from './event-jobs.js';
import type { EventEntity } from './event.entity.js';
import { EventsRepository } from './events.repository.js';
import { isInternalEvent } from './internal-events.js';
import { OutboxFanOuts } from './outbox-fan-out.js';
import { isTriggeredSample } from './sample-events.js';

/** What the relay publishes on the events channel for each event. */
export interface RelayedEvent {
  organizationId: string;
  mode: Mode;
  event: EventEnvelope;
}

/** Redis pub/sub channel carrying every relayed event envelope (live updates listen to it). */
export function eventsChannel(redisPrefix: string): string {
  return `${redisPrefix}:events`;
}
const BATCH_SIZE = 200;

const POLL_INTERVAL_MS = 1000;

/**
 * Moves committed outbox rows on: webhook deliveries (OutboxFanOuts, in the
 * same transaction), the jobs of the work they start (EventJobs) and every
 * envelope to Redis pub/sub — internal events (internal-events.ts) to the
 * jobs only. Rows are claimed with FOR UPDATE SKIP LOCKED so
 * several workers can relay at once; a row is marked relayed only after its
 * jobs are added, and a job's id names its work, so a crash in between re-adds
 * a job that BullMQ ignores.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly pump: WakeUpPump;
  private stopped = false;

  constructor(
    private readonly sql: Sql,
    private readonly events: EventsRepository,
    private readonly jobs: JobProducer,
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
    private readonly fanOuts: OutboxFanOuts,
    private readonly eventJobs: EventJobs,
  ) {
    // Woken by the events table's trigger (NOTIFY outbox) at every commit; polls as a fallback.
    this.pump = new WakeUpPump({
      name: OutboxRelay.name,
      databaseUrl: settings.databaseUrl,
      channel: 'outbox',
      pass: () => this.drain().then(() => POLL_INTERVAL_MS),
      retryMs: POLL_INTERVAL_MS,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.pump.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.pump.stop();
  }

  /** Runs a relay pass now, or right after the one in progress. */
  wake(): void {
    this.pump.wake();
  }

  /** Relays until no unrelayed rows remain. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const relayed = await this.relayBatch();
      total += relayed;
      if (relayed < BATCH_SIZE || this.stopped) return total;
    }
  }

  private async relayBatch(): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const rows = await this.events.claimUnrelayedAcrossTenants(tx, BATCH_SIZE);
      if (rows.length === 0) return 0;
      // Internal events only start work: no webhook nor live socket ever sees one.
      const announced = rows.filter((row) => !isInternalEvent(row.type));
      const pending = await this.fanOuts.fanOut(tx, announced);
      for (const row of rows) row.pendingWebhooks = pending.get(row.id) ?? 0;
      // The work new events start (`*.created`, internal events), queued here: the progress of running work,
      // which is most events, starts none; nor does a triggered sample, which names no real work.
      await this.jobs.addAll(
        this.eventJobs.jobsOf(rows.filter((row) => !isTriggeredSample(row.data))),
      );
      // Every announced envelope goes to live updates, in one round trip.
      await this.publish(announced);
      // Relayed, each with the webhooks the fan-outs left it pending for.
      await this.events.markRelayedAcrossTenants(tx, rows);
      return rows.length;
    });
  }

  private async publish(events: readonly EventEntity[]): Promise<void> {
    if (events.length === 0) return;
    const channel = eventsChannel(this.settings.redisPrefix);
    const publishes = this.redis.client.pipeline();
    for (const event of events) {
      publishes.publish(
        channel,
        JSON.stringify({
          organizationId: event.organizationId,
          mode: event.mode,
          event: toEnvelope(event),
        } satisfies RelayedEvent),
      );
    }
    const failed = (await publishes.exec())?.find(([error]) => error !== null);
    if (failed) throw failed[0];
  }
}
