import { Injectable } from '@nestjs/common';

/** Housekeeping a feature needs done every so often, once across all workers. */
export interface PeriodicTask {
  /** `feature.what`, e.g. `sessions.sweep`; the job scheduler's id and the job's name. */
  name: string;
  everyMs: number;
  /** One run; what it returns is logged when it did something. */
  run: () => Promise<TaskOutcome>;
  /**
   * What to do at once, in the worker that noticed, when Redis came back
   * without its data (RedisDataLoss): tasks that put back work whose job was
   * lost do it here without the thresholds of their periodic run, which stays
   * the fallback. Logged like `run`.
   */
  recover?: () => Promise<TaskOutcome>;
}

export type TaskOutcome = Record<string, number | string | null> | void;

/**
 * The periodic tasks of the features a worker runs. Features register theirs
 * when their module starts; the worker's maintenance processor turns each into
 * a BullMQ job scheduler, so every task runs once per interval whichever
 * worker takes it, and no API instance runs any.
 */
@Injectable()
export class PeriodicTasks {
  private readonly tasks = new Map<string, PeriodicTask>();

  register(task: PeriodicTask): void {
    if (!/^[a-z-]+\.[a-z-]+$/.test(task.name)) {
      throw new Error(`periodic task names are feature.what, got ${task.name}`);
    }
    if (this.tasks.has(task.name)) throw new Error(`periodic task ${task.name} registered twice`);
    this.tasks.set(task.name, task);
  }

  get(name: string): PeriodicTask | undefined {
    return this.tasks.get(name);
  }

  all(): PeriodicTask[] {
    return [...this.tasks.values()];
  }
}
