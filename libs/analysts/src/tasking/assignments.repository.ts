import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import {
  keysetPage,
  Sql,
  SqlConditions,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import type {
  Assignment,
  AssignmentStatus,
  SubmissionInput,
  SubmittedSketch,
  TaskedKind,
  Tasking,
} from './tasking.js';
import { TASKING, TASKING_COLUMNS, type TaskingRow } from './work-taskings.repository.js';

/** Assignments that still hold an analyst's time. */
const OPEN_STATUSES = `('assigned', 'submitted')`;

/** An assignment row joined with its tasking: the assignment's columns are `a_`-prefixed. */
interface AssignmentRow {
  a_id: string;
  a_user_id: string;
  a_status: AssignmentStatus;
  a_deadline: Date;
  a_descriptors: string[] | null;
  a_latitude: number | null;
  a_longitude: number | null;
  a_notes: string | null;
  a_confidence: number | null;
  a_submitted_at: Date | null;
  a_declined_at: Date | null;
  a_created_at: Date;
  a_updated_at: Date;
  a_event_sequence: number;
  a_sketches: SubmittedSketch[];
}

/** Assignments with their tasking and sketches; the caller adds `WHERE …`. */
const SELECT_ASSIGNMENTS = `SELECT a.id AS a_id, a.user_id AS a_user_id, a.status AS a_status,
    a.deadline AS a_deadline, a.descriptors AS a_descriptors, a.latitude AS a_latitude,
    a.longitude AS a_longitude, a.notes AS a_notes, a.confidence AS a_confidence,
    a.submitted_at AS a_submitted_at, a.declined_at AS a_declined_at,
    a.created_at AS a_created_at, a.updated_at AS a_updated_at,
    a.event_sequence AS a_event_sequence,
    COALESCE((SELECT json_agg(json_build_object('id', s.id, 'contentType', s.content_type,
                'sha256', s.sha256, 'byteSize', octet_length(s.bytes)) ORDER BY s.position)
                FROM assignment_sketches s WHERE s.assignment_id = a.id), '[]'::json) AS a_sketches,
    ${TASKING_COLUMNS}
  FROM assignments a JOIN work_taskings t ON t.id = a.tasking_id`;

function assignmentOf(row: AssignmentRow & TaskingRow): Assignment {
  return {
    id: row.a_id,
    userId: row.a_user_id,
    status: row.a_status,
    deadline: row.a_deadline,
    descriptors: row.a_descriptors,
    latitude: row.a_latitude,
    longitude: row.a_longitude,
    notes: row.a_notes,
    confidence: row.a_confidence,
    submittedAt: row.a_submitted_at,
    declinedAt: row.a_declined_at,
    createdAt: row.a_created_at,
    updatedAt: row.a_updated_at,
    eventSequence: row.a_event_sequence,
    tasking: TASKING.fromRow(row),
    sketches: row.a_sketches,
  };
}

/** An assignment given out, before anything happened on it. */
export interface NewAssignment {
  id: string;
  taskingId: string;
  userId: string;
  deadline: Date;
}

/** An assignment as its event needs it. */
export interface AssignmentHolder {
  id: string;
  userId: string;
  deadline: Date;
}

/** An assignment handed on at once by `releaseAllHeldBy`, with its tasking. */
export interface ReleasedAssignment {
  id: string;
  deadline: Date;
  /** Its event sequence after the release. */
  sequence: number;
  createdAt: Date;
  tasking: Tasking;
}

/** A submission as blind judging reads it: never whose, beyond the analyst's id for the trial. */
export interface JudgedSubmission {
  id: string;
  userId: string;
  descriptors: string[] | null;
  latitude: number | null;
  longitude: number | null;
  notes: string | null;
}

/** Filters of an analyst's own list of assignments. */
export interface AssignmentFilters {
  status?: AssignmentStatus | undefined;
  kind?: TaskedKind | undefined;
}

/**
 * The `assignments` table: one row per analyst on a tasking, the submission
 * on it. Reads of an assignment come with its tasking (`work_taskings`) and
 * its sketches' descriptions (`assignment_sketches`), one statement.
 */
@Injectable()
export class AssignmentsRepository {
  constructor(private readonly sql: Sql) {}

  async insert(
    tx: Transaction,
    tenant: Tenant,
    assignment: NewAssignment,
    createdAt: Date,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO assignments (id, organization_id, mode, tasking_id, user_id, status, deadline, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'assigned', $6, $7, $7)`,
      [
        assignment.id,
        tenant.organizationId,
        tenant.mode,
        assignment.taskingId,
        assignment.userId,
        assignment.deadline,
        createdAt,
      ],
    );
  }

  /**
   * Several assignments in one statement, each at event sequence 1 (its
   * `assignment.created` is written with it); one whose analyst is on that
   * work already (given a place meanwhile) is left out. Returns the ids
   * inserted.
   */
  async insertManyIfFree(
    tx: Transaction,
    tenant: Tenant,
    assignments: readonly NewAssignment[],
    createdAt: Date,
  ): Promise<Set<string>> {
    const rows = await tx.rows<{ id: string }>(
      `INSERT INTO assignments (id, organization_id, mode, tasking_id, user_id, status, deadline,
           created_at, updated_at, event_sequence)
       SELECT p.id, p.organization_id, p.mode, p.tasking_id, p.user_id, 'assigned', p.deadline, $7, $7, 1
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::timestamptz[])
           AS p(id, organization_id, mode, tasking_id, user_id, deadline)
       ON CONFLICT (tasking_id, user_id) DO NOTHING
       RETURNING id`,
      [
        assignments.map((a) => a.id),
        assignments.map(() => tenant.organizationId),
        assignments.map(() => tenant.mode),
        assignments.map((a) => a.taskingId),
        assignments.map((a) => a.userId),
        assignments.map((a) => a.deadline),
        createdAt,
      ],
    );
    return new Set(rows.map((row) => row.id));
  }

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<Assignment | null> {
    const [row] = await on.rows<AssignmentRow & TaskingRow>(
      `${SELECT_ASSIGNMENTS} WHERE a.id = $1 AND a.organization_id = $2 AND a.mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? assignmentOf(row) : null;
  }

  /** One of `userId`'s own assignments; null for anyone else's. */
  async findOwn(
    tenant: Tenant,
    userId: string,
    id: string,
    on: Queryable = this.sql,
  ): Promise<Assignment | null> {
    const [row] = await on.rows<AssignmentRow & TaskingRow>(
      `${SELECT_ASSIGNMENTS} WHERE a.id = $1 AND a.user_id = $2 AND a.mode = $3
         AND a.organization_id = $4`,
      [id, userId, tenant.mode, tenant.organizationId],
    );
    return row ? assignmentOf(row) : null;
  }

  /** `userId`'s assignment on a piece of work, locked until `tx` ends; null when they hold none. */
  async lockOnWork(
    tx: Transaction,
    tenant: Tenant,
    kind: TaskedKind,
    workId: string,
    userId: string,
  ): Promise<Assignment | null> {
    const [row] = await tx.rows<AssignmentRow & TaskingRow>(
      `${SELECT_ASSIGNMENTS} WHERE t.work_kind = $1 AND t.work_id = $2 AND a.user_id = $3
         AND a.organization_id = $4 AND a.mode = $5
         FOR UPDATE OF a`,
      [kind, workId, userId, tenant.organizationId, tenant.mode],
    );
    return row ? assignmentOf(row) : null;
  }

  /** The assignment's status, its row locked until `tx` ends; null when there is none. */
  async lockStatus(tx: Transaction, tenant: Tenant, id: string): Promise<AssignmentStatus | null> {
    const [row] = await tx.rows<{ status: AssignmentStatus }>(
      `SELECT status FROM assignments WHERE id = $1 AND organization_id = $2 AND mode = $3
        FOR UPDATE`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row?.status ?? null;
  }

  /** The submissions on a tasking, in the order the analysts were assigned. */
  async submissionsOn(
    tenant: Tenant,
    taskingId: string,
    on: Queryable = this.sql,
  ): Promise<Assignment[]> {
    const rows = await on.rows<AssignmentRow & TaskingRow>(
      `${SELECT_ASSIGNMENTS} WHERE a.tasking_id = $1 AND a.submitted_at IS NOT NULL
         AND a.status IN ('submitted', 'completed') AND a.organization_id = $2 AND a.mode = $3
         ORDER BY a.created_at, a.id`,
      [taskingId, tenant.organizationId, tenant.mode],
    );
    return rows.map(assignmentOf);
  }

  /** The submissions on a tasking as blind judging reads them, in no particular order. */
  async judgedSubmissionsOn(
    tenant: Tenant,
    taskingId: string,
    on: Queryable = this.sql,
  ): Promise<JudgedSubmission[]> {
    const rows = await on.rows<{
      id: string;
      user_id: string;
      descriptors: string[] | null;
      latitude: number | null;
      longitude: number | null;
      notes: string | null;
    }>(
      `SELECT id, user_id, descriptors, latitude, longitude, notes FROM assignments
        WHERE tasking_id = $1 AND submitted_at IS NOT NULL AND status IN ('submitted', 'completed')
          AND organization_id = $2 AND mode = $3`,
      [taskingId, tenant.organizationId, tenant.mode],
    );
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      descriptors: row.descriptors,
      latitude: row.latitude,
      longitude: row.longitude,
      notes: row.notes,
    }));
  }

  /** The member's own assignments, newest first (v2 keyset pages). */
  page(
    tenant: Tenant,
    userId: string,
    filters: AssignmentFilters,
    request: PageRequest,
    on: Queryable = this.sql,
  ): Promise<KeysetPage<Assignment>> {
    const where = new SqlConditions();
    where.and(`user_id = ${where.param(userId)}`);
    where.and(`mode = ${where.param(tenant.mode)}`);
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    if (filters.status) where.and(`status = ${where.param(filters.status)}`);
    if (filters.kind) {
      where.and(
        `tasking_id IN (SELECT id FROM work_taskings WHERE work_kind = ${where.param(filters.kind)})`,
      );
    }
    return keysetPage(
      (text, parameters) => on.rows(text, parameters),
      {
        table: 'assignments',
        where,
        scope: { user_id: userId, mode: tenant.mode },
        readRows: async (idsSql, parameters) =>
          (
            await on.rows<AssignmentRow & TaskingRow>(
              `${SELECT_ASSIGNMENTS} WHERE a.id IN (${idsSql}) ORDER BY a.created_at DESC, a.id DESC`,
              parameters,
            )
          ).map(assignmentOf),
      },
      request,
    );
  }

  /** Stores a submission (or its amendment) on the assignment: `submitted` at `at`. */
  async recordSubmission(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    input: SubmissionInput,
    at: Date,
  ): Promise<void> {
    await tx.query(
      `UPDATE assignments SET status = 'submitted', descriptors = $2, latitude = $3, longitude = $4,
              notes = $5, confidence = $6, submitted_at = $7, updated_at = $7
        WHERE id = $1 AND organization_id = $8 AND mode = $9`,
      [
        id,
        input.descriptors,
        input.coordinates?.latitude ?? null,
        input.coordinates?.longitude ?? null,
        input.notes,
        input.confidence,
        at,
        tenant.organizationId,
        tenant.mode,
      ],
    );
  }

  /** How many analysts on the tasking have submitted, and how many still hold their place. */
  async progressOn(
    tenant: Tenant,
    taskingId: string,
    on: Queryable = this.sql,
  ): Promise<{ submitted: number; active: number }> {
    const [row] = await on.rows<{ submitted: number; active: number }>(
      `SELECT count(*) FILTER (WHERE status = 'submitted')::int AS submitted,
              count(*) FILTER (WHERE status IN ${OPEN_STATUSES})::int AS active
         FROM assignments WHERE tasking_id = $1 AND organization_id = $2 AND mode = $3`,
      [taskingId, tenant.organizationId, tenant.mode],
    );
    return row!;
  }

  /** How many on the tasking have yet to submit. */
  async countWaitingOn(
    tenant: Tenant,
    taskingId: string,
    on: Queryable = this.sql,
  ): Promise<number> {
    const [row] = await on.rows<{ waiting: number }>(
      `SELECT count(*) FILTER (WHERE status = 'assigned')::int AS waiting
         FROM assignments WHERE tasking_id = $1 AND organization_id = $2 AND mode = $3`,
      [taskingId, tenant.organizationId, tenant.mode],
    );
    return row!.waiting;
  }

  /** Everyone on the tasking, whatever their assignment's status. */
  async userIdsOn(tenant: Tenant, taskingId: string, on: Queryable = this.sql): Promise<string[]> {
    const rows = await on.rows<{ user_id: string }>(
      `SELECT user_id FROM assignments WHERE tasking_id = $1 AND organization_id = $2 AND mode = $3`,
      [taskingId, tenant.organizationId, tenant.mode],
    );
    return rows.map((row) => row.user_id);
  }

  /** Everyone on each of the taskings, by tasking id. */
  async userIdsOnEach(
    tenant: Tenant,
    taskingIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<Map<string, Set<string>>> {
    const rows = await on.rows<{ tasking_id: string; user_id: string }>(
      `SELECT tasking_id, user_id FROM assignments
        WHERE tasking_id = ANY($1::uuid[]) AND organization_id = $2 AND mode = $3`,
      [taskingIds, tenant.organizationId, tenant.mode],
    );
    const people = new Map<string, Set<string>>();
    for (const row of rows) {
      people.set(row.tasking_id, (people.get(row.tasking_id) ?? new Set()).add(row.user_id));
    }
    return people;
  }

  /** How many open assignments each of `userIds` holds (every one of them in the answer). */
  async openCounts(
    tenant: Tenant,
    userIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<Map<string, number>> {
    const counts = new Map<string, number>(userIds.map((id) => [id, 0]));
    if (userIds.length === 0) return counts;
    const rows = await on.rows<{ user_id: string; open: number }>(
      `SELECT user_id, count(*)::int AS open FROM assignments
        WHERE user_id = ANY($1::uuid[]) AND status IN ${OPEN_STATUSES}
          AND organization_id = $2 AND mode = $3
        GROUP BY user_id`,
      [userIds, tenant.organizationId, tenant.mode],
    );
    for (const row of rows) counts.set(row.user_id, row.open);
    return counts;
  }

  /** Moves the assignment's event sequence on; returns the new one. */
  async nextEventSequence(tx: Transaction, tenant: Tenant, id: string): Promise<number> {
    const [row] = await tx.rows<{ event_sequence: number }>(
      `UPDATE assignments SET event_sequence = event_sequence + 1
        WHERE id = $1 AND organization_id = $2 AND mode = $3 RETURNING event_sequence`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row!.event_sequence;
  }

  async decline(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    reason: string | null,
    at: Date,
  ): Promise<void> {
    await tx.query(
      `UPDATE assignments SET status = 'declined', declined_at = $2, decline_reason = $3, updated_at = $2
        WHERE id = $1 AND organization_id = $4 AND mode = $5`,
      [id, at, reason, tenant.organizationId, tenant.mode],
    );
  }

  /** The work closed: every submitted assignment on the tasking is `completed`. */
  async completeSubmittedOn(
    tx: Transaction,
    tenant: Tenant,
    taskingId: string,
    at: Date,
  ): Promise<void> {
    await tx.query(
      `UPDATE assignments SET status = 'completed', updated_at = $2
        WHERE tasking_id = $1 AND status = 'submitted' AND organization_id = $3 AND mode = $4`,
      [taskingId, at, tenant.organizationId, tenant.mode],
    );
  }

  /** The work closed: every assignment on the tasking never submitted ends as `status`; returns them. */
  async endUnsubmittedOn(
    tx: Transaction,
    tenant: Tenant,
    taskingId: string,
    status: 'expired' | 'cancelled',
    at: Date,
  ): Promise<AssignmentHolder[]> {
    const rows = await tx.rows<{ id: string; user_id: string; deadline: Date }>(
      `UPDATE assignments SET status = $2, updated_at = $3
        WHERE tasking_id = $1 AND status = 'assigned' AND organization_id = $4 AND mode = $5
        RETURNING id, user_id, deadline`,
      [taskingId, status, at, tenant.organizationId, tenant.mode],
    );
    return rows.map((row) => ({ id: row.id, userId: row.user_id, deadline: row.deadline }));
  }

  /**
   * Every assignment `userId` has yet to submit on the (locked) taskings,
   * `declined` with reason `released` at `at`, its event sequence moved on;
   * returns them with their taskings, in no particular order.
   */
  async releaseAllHeldBy(
    tx: Transaction,
    tenant: Tenant,
    userId: string,
    taskingIds: readonly string[],
    at: Date,
  ): Promise<ReleasedAssignment[]> {
    const rows = await tx.rows<
      TaskingRow & { a_id: string; a_deadline: Date; a_event_sequence: number; a_created_at: Date }
    >(
      `UPDATE assignments a
          SET status = 'declined', declined_at = $3, decline_reason = 'released', updated_at = $3,
              event_sequence = a.event_sequence + 1
         FROM work_taskings t
        WHERE t.id = a.tasking_id AND t.id = ANY($2::uuid[]) AND a.user_id = $1
          AND a.status = 'assigned' AND a.organization_id = $4 AND a.mode = $5
        RETURNING a.id AS a_id, a.deadline AS a_deadline, a.event_sequence AS a_event_sequence,
                  a.created_at AS a_created_at, ${TASKING_COLUMNS}`,
      [userId, taskingIds, at, tenant.organizationId, tenant.mode],
    );
    return rows.map((row) => ({
      id: row.a_id,
      deadline: row.a_deadline,
      sequence: row.a_event_sequence,
      createdAt: row.a_created_at,
      tasking: TASKING.fromRow(row),
    }));
  }
}
