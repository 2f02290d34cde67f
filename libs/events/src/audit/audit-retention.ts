import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AppSettings } from '#config';
import { PeriodicTasks } from '#queue';
import { AuditEventsRepository } from './audit-events.repository.js';

const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 5000;

/**
 * Keeps the audit log to AUDIT_RETENTION_DAYS (default 365): hourly, in
 * batches so no transaction holds locks for long, through the one function
 * the append-only table lets delete.
 */
@Injectable()
export class AuditRetention implements OnModuleInit {
  constructor(
    private readonly auditEvents: AuditEventsRepository,
    private readonly tasks: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'audit.retention',
      everyMs: SWEEP_INTERVAL_MS,
      run: async () => ({ deleted: await this.sweep() }),
    });
  }

  /** Deletes every expired audit event; returns how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.auditEvents.sweepAcrossTenants(
        this.settings.auditRetentionDays,
        BATCH,
      );
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }
}
