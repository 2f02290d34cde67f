import { Injectable } from '@nestjs/common';
import { UsersRepository } from '#auth';
import { newUuid, type Tenant } from '#common';
import type { Transaction } from '#database';
import { EventLog, type EventDataMap, type NewEvent } from '#events';
import { leastLoaded, shuffled } from './analyst-picking.js';
import {
  type AssignmentEvent,
  assignmentEventBase,
  type AssignmentEventExtra,
  taskingTenant,
} from './assignment-events.js';
import {
  type AssignmentHolder,
  AssignmentsRepository,
  type NewAssignment,
} from './assignments.repository.js';
import type { Assignment, AssignmentStatus, Tasking } from './tasking.js';
import { WorkTaskingsRepository } from './work-taskings.repository.js';

/** A released assignment, with its tasking and whoever took it over (null: nobody was free). */
interface Released {
  assignment: { id: string; userId: string; deadline: Date; sequence: number };
  tasking: Tasking;
  replacement: { id: string; userId: string } | null;
}

/**
 * The changes of who holds a tasking's assignments, in the caller's
 * transaction: tasking gives each analyst one, declining hands one on, and
 * losing the analyst role hands on all of someone's at once. Who may take
 * one is libs/auth's to say (active analysts); how loaded they are, ours.
 */
@Injectable()
export class AssignmentChanges {
  constructor(
    private readonly assignments: AssignmentsRepository,
    private readonly taskings: WorkTaskingsRepository,
    private readonly users: UsersRepository,
    private readonly events: EventLog,
  ) {}

  /** Up to `count` active analysts, fewest open assignments first (ties at random), none of `excluded`. */
  async pickAnalysts(
    tx: Transaction,
    tenant: Tenant,
    count: number,
    excluded: readonly string[],
  ): Promise<string[]> {
    if (count <= 0) return [];
    const free = await this.users.activeAnalystIds(tenant.organizationId, excluded, tx);
    return leastLoaded(await this.assignments.openCounts(tenant, free, tx), count);
  }

  /** Gives `userId` an assignment on the tasking, with its deadline, and writes `assignment.created`. */
  async assign(
    tx: Transaction,
    tasking: Tasking,
    userId: string,
    requestId: string | null,
  ): Promise<void> {
    const assignment: NewAssignment = {
      id: newUuid(),
      taskingId: tasking.id,
      userId,
      deadline: tasking.deadline,
    };
    const now = new Date();
    await this.assignments.insert(tx, taskingTenant(tasking), assignment, now);
    await this.appendEvent(
      tx,
      assignment,
      tasking,
      'assigned',
      'assignment.created',
      { target_commitment: tasking.commitment, created_at: now.toISOString() },
      requestId,
    );
  }

  /**
   * Moves an assignment's event sequence on and writes its event, in the
   * caller's transaction. Blind like the assignment: the reference number,
   * never the target.
   */
  async appendEvent<T extends AssignmentEvent>(
    tx: Transaction,
    assignment: AssignmentHolder,
    tasking: Tasking,
    status: AssignmentStatus,
    type: T,
    extra: AssignmentEventExtra<T>,
    requestId: string | null,
  ): Promise<void> {
    const tenant = taskingTenant(tasking);
    const sequence = await this.assignments.nextEventSequence(tx, tenant, assignment.id);
    const base = assignmentEventBase(assignment, tasking, status, sequence);
    await this.events.append(tx, tenant, type, { ...base, ...extra } as EventDataMap[T], requestId);
  }

  /**
   * `declined` (by the analyst, or released), and someone else in their place
   * when anyone is free; when nobody is and nobody left on the work has yet to
   * submit, its deadline is brought to now so the deadline sweep closes it.
   */
  async release(
    tx: Transaction,
    assignment: Assignment,
    reason: string | null,
    requestId: string | null,
  ): Promise<void> {
    const { tasking } = assignment;
    const tenant = taskingTenant(tasking);
    const now = new Date();
    await this.assignments.decline(tx, tenant, assignment.id, reason, now);
    await this.appendEvent(
      tx,
      assignment,
      tasking,
      'declined',
      'assignment.declined',
      { declined_at: now.toISOString() },
      requestId,
    );
    const onWork = await this.assignments.userIdsOn(tenant, tasking.id, tx);
    const [replacement] = await this.pickAnalysts(tx, tenant, 1, onWork);
    if (replacement) {
      await this.assign(tx, tasking, replacement, requestId);
      return;
    }
    if ((await this.assignments.countWaitingOn(tenant, tasking.id, tx)) === 0) {
      await this.taskings.bringDeadlineForward(tx, tenant, tasking.id, now);
    }
  }

  /**
   * Every assignment `userId` has yet to submit on the tenant's open work,
   * handed on at once (they stopped being an analyst here, or were
   * disabled), with the effects `release` has on one: each `declined` with
   * reason `released` and its `assignment.declined`; in each place the free
   * analyst with the fewest open assignments (ties at random, counting the
   * ones just handed out, never someone already on that work) with its
   * `assignment.created`; and where nobody was free and nobody left has yet
   * to submit, the deadline brought to now. A fixed number of statements
   * however many assignments there are. The taskings are locked first, in the
   * order TaskingService.close locks them (tasking, then its assignments).
   * Returns how many were released.
   */
  async releaseAll(
    tx: Transaction,
    tenant: Tenant,
    userId: string,
    requestId: string | null,
  ): Promise<number> {
    const locked = await this.taskings.lockOpenHeldBy(tx, tenant, userId);
    if (locked.length === 0) return 0;
    const now = new Date();
    const rows = await this.assignments.releaseAllHeldBy(tx, tenant, userId, locked, now);
    // The order they were given in: the oldest work is handed on first.
    rows.sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || x.id.localeCompare(y.id));
    const released: Released[] = rows.map((row) => ({
      assignment: { id: row.id, userId, deadline: row.deadline, sequence: row.sequence },
      tasking: row.tasking,
      replacement: null,
    }));
    if (released.length === 0) return 0;
    await this.handOn(tx, tenant, released, userId, now);
    await this.events.appendMany(tx, releaseEvents(released, now), requestId);
    const unreplaced = released.filter((r) => r.replacement === null).map((r) => r.tasking.id);
    if (unreplaced.length > 0) {
      await this.taskings.bringDeadlinesForwardWhereNoneWaiting(tx, tenant, unreplaced, now);
    }
    return released.length;
  }

  /**
   * Picks someone for each released place as pickAnalysts would one at a time
   * (fewest open assignments, ties at random, none already on the work), and
   * gives them their assignments in one statement; sets `replacement`.
   */
  private async handOn(
    tx: Transaction,
    tenant: Tenant,
    released: Released[],
    userId: string,
    now: Date,
  ): Promise<void> {
    const free = await this.users.activeAnalystIds(tenant.organizationId, [userId], tx);
    const openCounts = await this.assignments.openCounts(tenant, free, tx);
    const people = await this.assignments.userIdsOnEach(
      tenant,
      released.map((r) => r.tasking.id),
      tx,
    );
    const load = new Map(shuffled(free).map((id) => [id, openCounts.get(id)!]));
    const picks: (NewAssignment & { tasking: Tasking })[] = [];
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
      picks.push({
        id: newUuid(),
        taskingId: place.tasking.id,
        userId: pick,
        deadline: place.tasking.deadline,
        tasking: place.tasking,
      });
    }
    if (picks.length === 0) return;
    // Someone given a place on the same work meanwhile keeps it: that place stays unfilled here.
    const given = await this.assignments.insertManyIfFree(tx, tenant, picks, now);
    const byTasking = new Map(
      picks.filter((p) => given.has(p.id)).map((p) => [p.tasking.id, p] as const),
    );
    for (const place of released) {
      const pick = byTasking.get(place.tasking.id);
      place.replacement = pick ? { id: pick.id, userId: pick.userId } : null;
    }
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
