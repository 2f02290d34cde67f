import type { TaskedKind } from '#analysts';
import type { FailedEvent } from './work-failure.js';

/**
 * What a kind of work is called, and the failure it announces: stated once
 * by each kind (a constant beside its events) and read by every part of the
 * lifecycle — the API side (WorkKind), people's work (AnalystKind) and the
 * worker (PluggedKind) — so they cannot disagree.
 */
export interface WorkIdentity<W> {
  /** The prefix of its public ids (`sess` of `sess_…`; ID_PREFIXES has the service's own). */
  readonly idPrefix: string;
  /** What its errors call it ("dowsing query"). */
  readonly noun: string;
  /** The lib that owns the kind: its periodic tasks and jobs are named after it. */
  readonly feature: string;
  /** Its tasking, when people can do it. */
  readonly tasked?: TaskedKind;
  /** The field of its events that names it: a deletion redacts them down to it. */
  readonly eventIdField: `${string}_id`;
  /** The audit action of a deletion (`session.deleted`). */
  readonly deletedAction: `${string}.deleted`;
  /** Its failure event (a cancellation, a deadline passed). */
  readonly failedEvent: FailedEvent<W>;
}

/** The identity of a kind people can do: it has a tasking. */
export type TaskedIdentity<W> = WorkIdentity<W> & { readonly tasked: TaskedKind };
