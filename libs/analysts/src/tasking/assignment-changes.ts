import type pg from 'pg';
import { newUuid } from '#common';
import type { EventLog } from '#events';
import { pickAnalysts } from './analyst-picking.js';
import { appendAssignmentEvent } from './assignment-events.js';
import type { Assignment, Tasking } from './tasking.js';

/**
 * The two changes of who holds a tasking's assignments, in the caller's
 * transaction: tasking gives each analyst one, and declining or losing the
 * analyst role hands one on.
 */

/** Gives `userId` an assignment on the tasking, with its deadline, and writes `assignment.created`. */
export async function assignAnalyst(
  tx: pg.PoolClient,
  events: EventLog,
  tasking: Tasking,
  userId: string,
  requestId: string | null,
): Promise<void> {
  const id = newUuid();
  const now = new Date();
  await tx.query(
    `INSERT INTO assignments (id, organization_id, mode, tasking_id, user_id, status, deadline, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'assigned', $6, $7, $7)`,
    [id, tasking.organizationId, tasking.mode, tasking.id, userId, tasking.deadline, now],
  );
  await appendAssignmentEvent(
    tx,
    events,
    { id, userId, deadline: tasking.deadline },
    tasking,
    'assigned',
    'assignment.created',
    { target_commitment: tasking.commitment, created_at: now.toISOString() },
    requestId,
  );
}

/**
 * `declined` (by the analyst, or released), and someone else in their place
 * when anyone is free; when nobody is and nobody left on the work has yet to
 * submit, its deadline is brought to now so the deadline sweep closes it.
 */
export async function releaseAssignment(
  tx: pg.PoolClient,
  events: EventLog,
  assignment: Assignment,
  reason: string | null,
  requestId: string | null,
): Promise<void> {
  const now = new Date();
  await tx.query(
    `UPDATE assignments SET status = 'declined', declined_at = $2, decline_reason = $3, updated_at = $2
      WHERE id = $1`,
    [assignment.id, now, reason],
  );
  await appendAssignmentEvent(
    tx,
    events,
    assignment,
    assignment.tasking,
    'declined',
    'assignment.declined',
    { declined_at: now.toISOString() },
    requestId,
  );
  const { rows } = await tx.query<{ user_id: string }>(
    `SELECT user_id FROM assignments WHERE tasking_id = $1`,
    [assignment.tasking.id],
  );
  const [replacement] = await pickAnalysts(
    tx,
    assignment.tasking,
    1,
    rows.map((row) => row.user_id),
  );
  if (replacement) {
    await assignAnalyst(tx, events, assignment.tasking, replacement, requestId);
    return;
  }
  const { rows: counts } = await tx.query<{ waiting: number }>(
    `SELECT count(*) FILTER (WHERE status = 'assigned')::int AS waiting
       FROM assignments WHERE tasking_id = $1`,
    [assignment.tasking.id],
  );
  if (counts[0]!.waiting === 0) {
    await tx.query(`UPDATE work_taskings SET deadline = LEAST(deadline, $2) WHERE id = $1`, [
      assignment.tasking.id,
      now,
    ]);
  }
}
