import type { Tenant } from '#common';
import type { Transaction } from '#database';
import type { EventLog } from '#events';
import type { WorkFailure } from '../records/work-event-data.js';
import type { StoredFailure } from '../work-table.repository.js';
import type { CreatedEvent } from './work-creation.js';

/** A kind's failure event of work that has just failed (it is stored so: status, reason, time). */
export type FailedEvent<W> = (failed: W, failure: WorkFailure, sequence: number) => CreatedEvent;

interface FailingWork {
  id: string;
  status: string;
  eventSequence: number;
}

/**
 * Ends work `failed` — stores the failure and appends the kind's failure
 * event at `sequence` — in the transaction that holds its row; the work as
 * it now is. Cancelling and the analysts' deadline end work this way.
 */
export async function recordFailure<W extends FailingWork>(
  tx: Transaction,
  tenant: Tenant,
  parts: {
    table: {
      markFailed(tx: Transaction, tenant: Tenant, id: string, failure: StoredFailure): unknown;
    };
    events: EventLog;
    failedEvent: FailedEvent<W>;
  },
  work: W,
  failure: WorkFailure,
  sequence: number,
  requestId: string | null,
): Promise<W> {
  await parts.table.markFailed(tx, tenant, work.id, { ...failure, sequence });
  const failed: W = {
    ...work,
    status: 'failed',
    failureReason: failure.reason,
    ...('failureMessage' in work ? { failureMessage: failure.message } : {}),
    completedAt: failure.failedAt,
    eventSequence: sequence,
    updatedAt: failure.failedAt,
  };
  const { type, data } = parts.failedEvent(failed, failure, sequence);
  await parts.events.append(tx, tenant, type, data as never, requestId);
  return failed;
}
