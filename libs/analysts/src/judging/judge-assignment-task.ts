import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { PeriodicTasks } from '#queue';
import { JudgingTasksRepository } from './judging-tasks.repository.js';
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
    private readonly judgingTasks: JudgingTasksRepository,
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
    const tenants = await this.judgingTasks.tenantsAwaitingJudgeAcrossTenants();
    let assigned = 0;
    for (const tenant of tenants) {
      try {
        assigned += await this.judging.assignWaitingOf(tenant, null);
      } catch (error) {
        this.logger.warn(
          { organizationId: tenant.organizationId, mode: tenant.mode, err: error },
          'waiting judging tasks not given out',
        );
      }
    }
    return {
      assigned,
      organizations: new Set(tenants.map((tenant) => tenant.organizationId)).size,
    };
  }
}
