import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppSettings } from '#config';
import { PeriodicTasks } from '#queue';

const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 5000;

/** Deletes one batch of expired events with their deliveries and attempts; returns how many events. */
const SWEEP = `
WITH doomed AS (
  SELECT id FROM events
   WHERE created_at < now() - $1 * interval '1 day' AND relayed_at IS NOT NULL
   ORDER BY created_at LIMIT ${BATCH}
), deliveries AS (
  DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM doomed) RETURNING id
), attempts AS (
  DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM deliveries)
)
DELETE FROM events WHERE id IN (SELECT id FROM doomed)`;

/**
 * Keeps the event log to EVENT_RETENTION_DAYS (default 30): hourly, expired
 * events go, in batches so no statement holds locks for long.
 */
@Injectable()
export class EventRetention implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
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
      const [, deleted] = (await this.dataSource.query(SWEEP, [
        this.settings.eventRetentionDays,
      ])) as [unknown, number];
      total += deleted;
      if (deleted < BATCH) break;
    }
    return total;
  }
}
