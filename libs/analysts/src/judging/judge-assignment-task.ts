import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Sql } from '#database';
import { PeriodicTasks } from '#queue';
import { JudgingService } from './judging.service.js';

/**
 * Judging tasks wait (`awaiting_judge`) while no judge who did not work on
 * the piece is free. Members' changes give them out at once (the people API
 * calls `assignWaiting` when someone becomes a judge); this periodic run
 * (`judging.assign-waiting`, every five minutes) catches the rest — a judge
 * enabled again, an assignment run that failed — across organisations.
 */
@Injectable()
export class WaitingJudgingTasks implements OnModuleInit {
  private readonly logger = new Logger(WaitingJudgingTasks.name);

  constructor(
    private readonly sql: Sql,
    private readonly judging: JudgingService,
    private readonly tasks: PeriodicTasks,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'judging.assign-waiting',
      everyMs: 300_000,
      run: () => this.run(),
    });
  }

  async run(): Promise<{ assigned: number; organizations: number }> {
    const organizations = await this.sql.rows<{ organization_id: string }>(
      `SELECT DISTINCT organization_id FROM judging_tasks WHERE status = 'awaiting_judge'`,
      [],
    );
    let assigned = 0;
    for (const { organization_id: organizationId } of organizations) {
      try {
        assigned += await this.judging.assignWaiting(organizationId, null);
      } catch (error) {
        this.logger.warn({ organizationId, err: error }, 'waiting judging tasks not given out');
      }
    }
    return { assigned, organizations: organizations.length };
  }
}
