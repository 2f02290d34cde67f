import type { CombiningInputs, PreparedTasking, SubmissionProgress, Tasking } from '#analysts';
import type { Mode, Tenant } from '#common';
import type { Transaction } from '#database';
import type { VerifiedRecordQuery } from '#history';
import type { VerifiedOutcomeStatistics } from '#statistics';
import type { TaskedIdentity } from '../lifecycle/work-identity.js';
import type { StoredFailure } from '../work-table.repository.js';

/** A tasking checked for work whose request also sets the deadline (AnalystLifecycle.prepareTimed). */
export type TimedTasking = PreparedTasking & { durationMinutes: number };

/** What the lifecycle reads of any kind's row. */
export interface AnalystWorkRow {
  id: string;
  organizationId: string;
  mode: Mode;
  engine: string;
  status: string;
  eventSequence: number;
}

/** What the analysts are told, blind, and what judging takes as the truth when no pool target is named. */
export interface BlindBrief {
  target: string;
  modality: string | null;
  /** The work's type as the analyst may know it: it must say nothing of the target. */
  questionType: string | null;
}

/** The kind's table, as its repository (a WorkTable) has it. */
export interface AnalystWorkTable<W> {
  find(tenant: Tenant, id: string, on?: Transaction): Promise<W | null>;
  transitionWithSequence(
    tenant: Tenant,
    id: string,
    change: (tx: Transaction, sequence: number) => Promise<boolean>,
  ): Promise<boolean>;
  markFailed(tx: Transaction, tenant: Tenant, id: string, failure: StoredFailure): Promise<unknown>;
}

/** What combining the submissions of completed work starts from. */
export interface CompletionInputs extends CombiningInputs {
  /** The organisation's verified outcomes on this kind of work, when it has any. */
  verified: VerifiedOutcomeStatistics | null;
}

/**
 * A kind of work people can do (docs/analysts.md), as AnalystLifecycle runs
 * it: the lifecycle tasks it, takes the submissions, completes it when all
 * are in and closes it at its deadline; the kind says only what its table,
 * results and events hold (AnalystKindService is the way to write one). The
 * `record…` hooks run in the transaction that holds the work's row, and
 * `sequence` is the number their event takes.
 */
export interface AnalystKind<
  W extends AnalystWorkRow,
  R extends PreparedTasking = PreparedTasking,
> {
  /** Its names and failure event, shared with its WorkKind (WorkIdentity); its tasking's kind names its public ids. */
  readonly identity: TaskedIdentity<W>;
  readonly table: AnalystWorkTable<W>;
  /** Statuses in which a submission moves the work on. */
  readonly submittable: readonly string[];
  /** Statuses in which the deadline still ends the work (else only its tasking closes). */
  readonly open: readonly string[];
  /** The completion's log line: the key its public id goes under, and the message. */
  readonly completedLog: { readonly idKey: string; readonly message: string };
  brief(work: W): BlindBrief;
  /** Minutes the analysts have. */
  durationMinutes(work: W, request: R): number;
  /** The verified outcomes its results are weighed against. */
  verified(work: W): VerifiedRecordQuery;
  /** The work was just tasked: its own state change and event, when it has one. */
  recordTasked?(
    tx: Transaction,
    tenant: Tenant,
    work: W,
    tasking: Tasking,
    sequence: number,
    requestId: string | null,
  ): Promise<void>;
  /** A submission was taken: true when the kind announced progress (with the event at `sequence`). */
  recordProgress?(
    tx: Transaction,
    tenant: Tenant,
    work: W,
    progress: SubmissionProgress,
    sequence: number,
    requestId: string | null,
  ): Promise<boolean>;
  /** Combines the submissions into the kind's results and writes them, with the completion event. */
  recordCompletion(
    tx: Transaction,
    tenant: Tenant,
    work: W,
    inputs: CompletionInputs,
    sequence: number,
    requestId: string | null,
  ): Promise<void>;
}
