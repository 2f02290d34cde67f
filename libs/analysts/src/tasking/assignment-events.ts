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
  const base = assignmentEventBase(assignment, tasking, status, rows[0]!.event_sequence);
  await events.append(
    tx,
    taskingTenant(tasking),
    type,
    { ...base, ...extra } as EventDataMap[T],
    requestId,
  );
}

/** What every assignment event says of its assignment, at event sequence number `sequence`. */
export function assignmentEventBase(
  assignment: { id: string; userId: string; deadline: Date },
  tasking: Tasking,
  status: AssignmentStatus,
  sequence: number,
): AssignmentEventBase {
  return {
    assignment_id: toPublicId('assignment', assignment.id),
    work_id: workPublicId(tasking),
    kind: tasking.kind,
    analyst_id: toPublicId('analyst', assignment.userId),
    target_reference_number: tasking.referenceNumber,
    status,
    deadline: assignment.deadline.toISOString(),
    sequence,
  };
}

/** The organisation and mode a tasking's events belong to. */
export function taskingTenant(tasking: Tasking): Tenant {
  return { organizationId: tasking.organizationId, mode: tasking.mode };
}
