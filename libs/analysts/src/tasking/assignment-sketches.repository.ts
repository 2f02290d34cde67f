import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable, type Transaction } from '#database';
import type { TaskedKind } from './tasking.js';

/** A stored sketch, to serve. */
export interface SketchContent {
  contentType: string;
  bytes: Buffer;
}

/** A sketch of a submission without its bytes, as the judge's view lists it. */
export interface SketchListing {
  id: string;
  assignmentId: string;
  contentType: string;
}

/** A sketch to store: checked and sanitised already (prepareSketch). */
export interface NewSketch {
  id: string;
  contentType: string;
  bytes: Buffer;
  sha256: string;
}

/**
 * The `assignment_sketches` table: the sketches of a submission, in order.
 * The table holds no tenant of its own; reads that are not by assignment
 * reach the tenant through the assignment (and its tasking).
 */
@Injectable()
export class AssignmentSketchesRepository {
  constructor(private readonly sql: Sql) {}

  /** The assignment's sketches become `sketches`, in that order. */
  async replace(
    tx: Transaction,
    assignmentId: string,
    sketches: readonly NewSketch[],
  ): Promise<void> {
    await tx.query(`DELETE FROM assignment_sketches WHERE assignment_id = $1`, [assignmentId]);
    for (const [position, sketch] of sketches.entries()) {
      await tx.query(
        `INSERT INTO assignment_sketches (id, assignment_id, position, content_type, bytes, sha256)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [sketch.id, assignmentId, position, sketch.contentType, sketch.bytes, sketch.sha256],
      );
    }
  }

  /** A sketch submitted on a piece of work of the tenant. */
  async findOnWork(
    tenant: Tenant,
    kind: TaskedKind,
    workId: string,
    sketchId: string,
    on: Queryable = this.sql,
  ): Promise<SketchContent | null> {
    const [row] = await on.rows<{ content_type: string; bytes: Buffer }>(
      `SELECT s.content_type, s.bytes FROM assignment_sketches s
         JOIN assignments a ON a.id = s.assignment_id
         JOIN work_taskings t ON t.id = a.tasking_id
        WHERE s.id = $1 AND t.work_kind = $2 AND t.work_id = $3
          AND t.organization_id = $4 AND t.mode = $5`,
      [sketchId, kind, workId, tenant.organizationId, tenant.mode],
    );
    return row ? { contentType: row.content_type, bytes: row.bytes } : null;
  }

  /** A sketch of `userId`'s own assignment; null for anyone else's. */
  async findOwn(
    tenant: Tenant,
    userId: string,
    assignmentId: string,
    sketchId: string,
    on: Queryable = this.sql,
  ): Promise<SketchContent | null> {
    const [row] = await on.rows<{ content_type: string; bytes: Buffer }>(
      `SELECT s.content_type, s.bytes FROM assignment_sketches s
         JOIN assignments a ON a.id = s.assignment_id
        WHERE s.id = $1 AND a.id = $2 AND a.user_id = $3 AND a.mode = $4
          AND a.organization_id = $5`,
      [sketchId, assignmentId, userId, tenant.mode, tenant.organizationId],
    );
    return row ? { contentType: row.content_type, bytes: row.bytes } : null;
  }

  /** A sketch of a submission on the tasking (what its judge may see). */
  async findSubmittedOn(
    tenant: Tenant,
    taskingId: string,
    sketchId: string,
    on: Queryable = this.sql,
  ): Promise<SketchContent | null> {
    const [row] = await on.rows<{ content_type: string; bytes: Buffer }>(
      `SELECT s.content_type, s.bytes FROM assignment_sketches s
         JOIN assignments a ON a.id = s.assignment_id
        WHERE s.id = $1 AND a.tasking_id = $2 AND a.submitted_at IS NOT NULL
          AND a.status IN ('submitted', 'completed')
          AND a.organization_id = $3 AND a.mode = $4`,
      [sketchId, taskingId, tenant.organizationId, tenant.mode],
    );
    return row ? { contentType: row.content_type, bytes: row.bytes } : null;
  }

  /** The sketches of these assignments, without their bytes, each assignment's in order. */
  async listOf(
    assignmentIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<SketchListing[]> {
    const rows = await on.rows<{ id: string; assignment_id: string; content_type: string }>(
      `SELECT id, assignment_id, content_type FROM assignment_sketches
        WHERE assignment_id = ANY ($1::uuid[]) ORDER BY position`,
      [assignmentIds],
    );
    return rows.map((row) => ({
      id: row.id,
      assignmentId: row.assignment_id,
      contentType: row.content_type,
    }));
  }
}
