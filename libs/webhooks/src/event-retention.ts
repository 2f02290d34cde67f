import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { EventsRepository } from '#events';
import { PeriodicTasks } from '#queue';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 5000;

/**
 * Keeps the event log to EVENT_RETENTION_DAYS (default 30): hourly, expired
 * events go with their deliveries and attempts, in batches so no
 * transaction holds locks for long. Deliveries are deleted before their
 * events: the lock order of every writer of both (DeliveryOutcomes).
 */
@Injectable()
export class EventRetention implements OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly tasks: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'events.retention',
      everyMs: SWEEP_INTERVAL_MS,
      run: async () => ({ deleted: await this.sweep() }),
    });
  }

  /** Deletes every expired event; returns how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.sql.transaction(async (tx) => {
        const doomed = await this.events.expiredAcrossTenants(
          this.settings.eventRetentionDays,
          BATCH,
          tx,
        );
        if (doomed.length === 0) return 0;
        await this.deliveries.deleteOfEventsAcrossTenants(tx, doomed);
        return this.events.deleteAcrossTenants(tx, doomed);
      });
      total += deleted;
      if (deleted < BATCH) break;
    }
    return total;
  }
}
