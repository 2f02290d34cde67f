import { type IdKind, toPublicId, type Tenant } from '#common';
import type { SqlExecutor } from '#database';
import type { AssignmentEventBase, EventDataMap, EventLog } from '#events';
import type { AssignmentStatus, TaskedKind, Tasking } from './tasking.js';

const WORK_ID_KIND: Record<TaskedKind, IdKind> = {
  session: 'session',
  analysis: 'analysis',
  dowsing: 'dowsing',
};

/** `sess_…`, `anal_…` or `dowse_…`: the public id of the work a tasking is for. */
export function workPublicId(tasking: Pick<Tasking, 'kind' | 'workId'>): string {
  return toPublicId(WORK_ID_KIND[tasking.kind], tasking.workId);
}

type AssignmentEvent =
  'assignment.created' | 'assignment.declined' | 'assignment.submitted' | 'assignment.expired';

/**
 * Moves an assignment's event sequence on and writes its event, in the
 * caller's transaction. Blind like the assignment: the reference number,
 * never the target.
 */
export async function appendAssignmentEvent<T extends AssignmentEvent>(
  tx: SqlExecutor,
  events: EventLog,
  assignment: { id: string; userId: string; deadline: Date },
  tasking: Tasking,
  status: AssignmentStatus,
  type: T,
  extra: Omit<EventDataMap[T], keyof AssignmentEventBase>,
  requestId: string | null,
): Promise<void> {
  const { rows } = (await tx.query(
    `UPDATE assignments SET event_sequence = event_sequence + 1 WHERE id = $1 RETURNING event_sequence`,
    [assignment.id],
  )) as { rows: { event_sequence: number }[] };
  const base: AssignmentEventBase = {
    assignment_id: toPublicId('assignment', assignment.id),
    work_id: workPublicId(tasking),
    kind: tasking.kind,
    analyst_id: toPublicId('analyst', assignment.userId),
    target_reference_number: tasking.referenceNumber,
    status,
    deadline: assignment.deadline.toISOString(),
    sequence: rows[0]!.event_sequence,
  };
  const tenant: Tenant = { organizationId: tasking.organizationId, mode: tasking.mode };
  await events.append(tx, tenant, type, { ...base, ...extra } as EventDataMap[T], requestId);
}
