import { type IdKind, toPublicId, type Tenant } from '#common';
import type { AssignmentEventBase, EventDataMap } from '#events';
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

/** The events of an assignment's life. */
export type AssignmentEvent =
  'assignment.created' | 'assignment.declined' | 'assignment.submitted' | 'assignment.expired';

/** What an assignment event says beyond what every one says (assignmentEventBase). */
export type AssignmentEventExtra<T extends AssignmentEvent> = Omit<
  EventDataMap[T],
  keyof AssignmentEventBase
>;

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
export function taskingTenant(tasking: Pick<Tasking, 'organizationId' | 'mode'>): Tenant {
  return { organizationId: tasking.organizationId, mode: tasking.mode };
}
