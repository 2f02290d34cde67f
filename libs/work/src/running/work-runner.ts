import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { toPublicId, type IdKind, type Tenant } from '#common';
import type { AppSettings } from '#config';
import type { Transaction } from '#database';
import type { EventDataMap, EventLog, KnownEventType } from '#events';

/** What a runner reads of every kind of work it carries. */
export interface RunWork extends Tenant {
  id: string;
  status: string;
  engine: string;
}

/** A state change of the work, in the transaction holding its row: whether the run carries on. */
export type WorkChange = (tx: Transaction, sequence: number) => Promise<boolean>;

/** A kind's repository's guarded transition: a transaction holding the work's row, with its next event sequence. */
export interface SequencedTransitions {
  transitionWithSequence(tenant: Tenant, id: string, change: WorkChange): Promise<boolean>;
}

/**
 * What every runner of simulated work shares: each step is one transaction
 * guarded by the stored state, so a job that runs again after a crash
 * resumes where the last one stopped, and a twin, a cancel or a delete stops
 * the run at its next step. A kind's runner is a subclass that adds its
 * engine's steps.
 */
export abstract class WorkRunner<W extends RunWork> {
  protected readonly logger = new Logger(this.constructor.name);

  protected constructor(
    private readonly idKind: IdKind,
    private readonly transitions: SequencedTransitions,
    private readonly events: EventLog,
    private readonly settings: AppSettings,
  ) {}

  /**
   * Whether the worker has the work to carry on: it is there and unfinished,
   * and people are not doing it (analyst work: nothing for the worker to pace).
   */
  protected runsHere(work: W | null): work is W {
    if (!work || work.status === 'completed' || work.status === 'failed') return false;
    return work.engine !== 'analyst';
  }

  /** Waits out one simulated step; an aborted job stops waiting at once. */
  protected pace(stepMultiplier: number, signal: AbortSignal | undefined): Promise<void> {
    return sleep(
      this.settings.simulatedStepMs * stepMultiplier,
      undefined,
      signal ? { signal } : undefined,
    );
  }

  /** The tenant the work belongs to, for its repository's statements. */
  protected tenantOf(work: W): Tenant {
    return { organizationId: work.organizationId, mode: work.mode };
  }

  /** Runs a state change in a transaction that holds the work's row, with its next event sequence. */
  protected transition(work: W, change: WorkChange): Promise<boolean> {
    return this.transitions.transitionWithSequence(this.tenantOf(work), work.id, change);
  }

  /**
   * A guarded step taken now: `write` stores it under the next event
   * sequence, or finds the stored state moved on (a twin took the step, the
   * work was cancelled or deleted) and the step ends there, false; once
   * stored, `announce` brings the work in memory up to date and appends the
   * step's events in the same transaction.
   */
  protected guardedStep(
    work: W,
    write: (tx: Transaction, tenant: Tenant, sequence: number, now: Date) => Promise<boolean>,
    announce: (tx: Transaction, sequence: number, now: Date) => Promise<void>,
  ): Promise<boolean> {
    return this.transition(work, async (tx, sequence) => {
      const now = new Date();
      if (!(await write(tx, this.tenantOf(work), sequence, now))) return false;
      await announce(tx, sequence, now);
      return true;
    });
  }

  /** Appends one of the work's events in the transaction of its state change. */
  protected async announce<T extends KnownEventType>(
    tx: Transaction,
    work: W,
    type: T,
    data: EventDataMap[T],
    requestId: string | null,
  ): Promise<void> {
    await this.events.append(tx, this.tenantOf(work), type, data, requestId);
  }

  /** Logs that the work ended, under its public id (`sessionId`, `analysisId`, …). */
  protected logEnded(
    work: W,
    ended: { status: 'completed' } | { status: 'failed'; reason: string },
    requestId: string | null,
  ): void {
    const reason = ended.status === 'failed' ? { reason: ended.reason } : {};
    this.logger.log(
      { [`${this.idKind}Id`]: toPublicId(this.idKind, work.id), ...reason, requestId },
      `${this.idKind} ${ended.status}`,
    );
  }
}
