import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AppSettings } from '#config';
import { PeriodicTasks } from '#queue';
import { AnalystLifecycle } from './analyst-lifecycle.js';

/**
 * The worker closes work done by people whose deadline has passed, every
 * ANALYST_DEADLINE_SWEEP_MS: one periodic task per kind plugged into the
 * lifecycle, `{feature}.analyst-deadlines`: each kind's sweep keeps the
 * scheduler it had, and a failing one leaves the others running.
 */
@Injectable()
export class AnalystDeadlines implements OnModuleInit {
  constructor(
    private readonly lifecycle: AnalystLifecycle,
    private readonly periodic: PeriodicTasks,
    private readonly settings: AppSettings,
  ) {}

  // The kinds plug in when they are constructed, which Nest finishes before any module starts.
  onModuleInit(): void {
    for (const kind of this.lifecycle.pluggedIn()) {
      this.periodic.register({
        name: `${kind.identity.feature}.analyst-deadlines`,
        everyMs: this.settings.analystDeadlineSweepMs,
        run: async () => {
          const closed = await this.lifecycle.closeOverdue(kind);
          return closed > 0 ? { closed } : undefined;
        },
      });
    }
  }
}
