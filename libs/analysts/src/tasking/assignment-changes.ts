import type { Transaction } from '#database';
import { newUuid } from '#common';
import type { EventLog, NewEvent } from '#events';
import { OPEN_STATUSES, pickAnalysts } from './analyst-picking.js';
import { appendAssignmentEvent, assignmentEventBase, taskingTenant } from './assignment-events.js';
import type { Assignment, Tasking } from './tasking.js';
import { TASKING_COLUMNS, taskingFromRow, type TaskingRow } from './tasking-rows.js';

/**
 * The changes of who holds a tasking's assignments, in the caller's
 * transaction: tasking gives each analyst one, declining hands one on, and
 * losing the analyst role hands on all of someone's at once.
 */

/** Gives `userId` an assignment on the tasking, with its deadline, and writes `assignment.created`. */
export async function assignAnalyst(
  tx: Transaction,
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
  tx: Transaction,
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

/** A released assignment, with its tasking and whoever took it over (null: nobody was free). */
interface Released {
  assignment: { id: string; userId: string; deadline: Date; sequence: number };
  tasking: Tasking;
  replacement: { id: string; userId: string } | null;
}

/**
 * Every assignment `userId` has yet to submit on open work, handed on at
 * once (they stopped being an analyst here, or were disabled), with the
 * effects releaseAssignment has on one: each `declined` with reason
 * `released` and its `assignment.declined`; in each place the free analyst
 * with the fewest open assignments (ties at random, counting the ones just
 * handed out, never someone already on that work) with its
 * `assignment.created`; and where nobody was free and nobody left has yet
 * to submit, the deadline brought to now. A fixed number of statements
 * however many assignments there are. The taskings are locked first, in the
 * order TaskingService.close locks them (tasking, then its assignments).
 * Returns how many were released.
 */
export async function releaseAllAssignments(
  tx: Transaction,
  events: EventLog,
  userId: string,
  requestId: string | null,
): Promise<number> {
  const { rows: locked } = await tx.query<{ id: string }>(
    `SELECT t.id FROM work_taskings t
      WHERE t.closed_at IS NULL
        AND t.id IN (SELECT tasking_id FROM assignments WHERE user_id = $1 AND status = 'assigned')
      ORDER BY t.id
      FOR NO KEY UPDATE OF t`,
    [userId],
  );
  if (locked.length === 0) return 0;
  const now = new Date();
  const { rows } = await tx.query<
    TaskingRow & { a_id: string; a_deadline: Date; a_event_sequence: number; a_created_at: Date }
  >(
    `UPDATE assignments a
        SET status = 'declined', declined_at = $3, decline_reason = 'released', updated_at = $3,
            event_sequence = a.event_sequence + 1
       FROM work_taskings t
      WHERE t.id = a.tasking_id AND t.id = ANY($2::uuid[]) AND a.user_id = $1
        AND a.status = 'assigned'
      RETURNING a.id AS a_id, a.deadline AS a_deadline, a.event_sequence AS a_event_sequence,
                a.created_at AS a_created_at, ${TASKING_COLUMNS}`,
    [userId, locked.map((row) => row.id), now],
  );
  // The order they were given in: the oldest work is handed on first.
  rows.sort(
    (x, y) => x.a_created_at.getTime() - y.a_created_at.getTime() || x.a_id.localeCompare(y.a_id),
  );
  const released: Released[] = rows.map((row) => ({
    assignment: {
      id: row.a_id,
      userId,
      deadline: row.a_deadline,
      sequence: row.a_event_sequence,
    },
    tasking: taskingFromRow(row),
    replacement: null,
  }));
  if (released.length === 0) return 0;
  await handOn(tx, released, userId, now);
  await events.appendMany(tx, releaseEvents(released, now), requestId);
  const unreplaced = released.filter((r) => r.replacement === null).map((r) => r.tasking.id);
  if (unreplaced.length > 0) {
    await tx.query(
      `UPDATE work_taskings t SET deadline = LEAST(t.deadline, $2)
        WHERE t.id = ANY($1::uuid[])
          AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.tasking_id = t.id AND a.status = 'assigned')`,
      [unreplaced, now],
    );
  }
  return released.length;
}

/**
 * Picks someone for each released place as pickAnalysts would one at a time
 * (fewest open assignments, ties at random, none already on the work), and
 * gives them their assignments in one statement; sets `replacement`.
 */
async function handOn(
  tx: Transaction,
  released: Released[],
  userId: string,
  now: Date,
): Promise<void> {
  const taskingIds = released.map((r) => r.tasking.id);
  const { rows: free } = await tx.query<{ id: string; open: number }>(
    `SELECT u.id, (SELECT count(*) FROM assignments a
                    WHERE a.user_id = u.id AND a.status IN ${OPEN_STATUSES})::int AS open
       FROM users u
      WHERE u.organization_id = $1 AND u.disabled_at IS NULL AND 'analyst' = ANY(u.roles)
        AND u.id <> $2`,
    [released[0]!.tasking.organizationId, userId],
  );
  const { rows: onWork } = await tx.query<{ tasking_id: string; user_id: string }>(
    `SELECT tasking_id, user_id FROM assignments WHERE tasking_id = ANY($1::uuid[])`,
    [taskingIds],
  );
  const load = new Map(shuffled(free).map((row) => [row.id, row.open]));
  const people = new Map<string, Set<string>>();
  for (const row of onWork) {
    people.set(row.tasking_id, (people.get(row.tasking_id) ?? new Set()).add(row.user_id));
  }
  const picks: { id: string; userId: string; tasking: Tasking }[] = [];
  for (const place of released) {
    const taken = people.get(place.tasking.id) ?? new Set<string>();
    let pick: string | null = null;
    for (const [candidate, open] of load) {
      if (!taken.has(candidate) && (pick === null || open < load.get(pick)!)) pick = candidate;
    }
    if (pick === null) continue;
    load.set(pick, load.get(pick)! + 1);
    taken.add(pick);
    people.set(place.tasking.id, taken);
    picks.push({ id: newUuid(), userId: pick, tasking: place.tasking });
  }
  if (picks.length === 0) return;
  // Someone given a place on the same work meanwhile keeps it: that place stays unfilled here.
  const { rows: inserted } = await tx.query<{ id: string }>(
    `INSERT INTO assignments (id, organization_id, mode, tasking_id, user_id, status, deadline,
         created_at, updated_at, event_sequence)
     SELECT p.id, p.organization_id, p.mode, p.tasking_id, p.user_id, 'assigned', p.deadline, $7, $7, 1
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::timestamptz[])
         AS p(id, organization_id, mode, tasking_id, user_id, deadline)
     ON CONFLICT (tasking_id, user_id) DO NOTHING
     RETURNING id`,
    [
      picks.map((p) => p.id),
      picks.map((p) => p.tasking.organizationId),
      picks.map((p) => p.tasking.mode),
      picks.map((p) => p.tasking.id),
      picks.map((p) => p.userId),
      picks.map((p) => p.tasking.deadline),
      now,
    ],
  );
  const given = new Set(inserted.map((row) => row.id));
  const byTasking = new Map(
    picks.filter((p) => given.has(p.id)).map((p) => [p.tasking.id, p] as const),
  );
  for (const place of released) {
    const pick = byTasking.get(place.tasking.id);
    place.replacement = pick ? { id: pick.id, userId: pick.userId } : null;
  }
}

/** Each release's `assignment.declined`, then its replacement's `assignment.created`, as one at a time writes them. */
function releaseEvents(released: readonly Released[], now: Date): NewEvent[] {
  const at = now.toISOString();
  return released.flatMap(({ assignment, tasking, replacement }): NewEvent[] => [
    {
      tenant: taskingTenant(tasking),
      type: 'assignment.declined',
      data: {
        ...assignmentEventBase(assignment, tasking, 'declined', assignment.sequence),
        declined_at: at,
      },
    },
    ...(replacement === null
      ? []
      : [
          {
            tenant: taskingTenant(tasking),
            type: 'assignment.created',
            data: {
              ...assignmentEventBase(
                { ...replacement, deadline: tasking.deadline },
                tasking,
                'assigned',
                1,
              ),
              target_commitment: tasking.commitment,
              created_at: at,
            },
          } satisfies NewEvent,
        ]),
  ]);
}

/** A copy in random order, so ties between equally loaded analysts fall at random. */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
