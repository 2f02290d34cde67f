import { Injectable } from '@nestjs/common';
import type { Member } from '#auth';
import { AppError, parsePublicId, type Tenant } from '#common';
import { Sql } from '#database';
import type { TaskedKind } from './tasking.js';

/**
 * Reading back the sketches analysts submitted: for the work's readers (its
 * results link them), and for the analyst who drew them. Stored as checked
 * and sanitised on upload (prepareSketch); served inert by the API.
 */
@Injectable()
export class SubmittedSketches {
  constructor(private readonly sql: Sql) {}

  /** A sketch an analyst submitted on a piece of work, for the work's readers. */
  async ofWork(
    tenant: Tenant,
    kind: TaskedKind,
    workId: string,
    sketchId: string,
  ): Promise<{ contentType: string; bytes: Buffer } | null> {
    const [row] = await this.sql.rows<{ content_type: string; bytes: Buffer }>(
      `SELECT s.content_type, s.bytes FROM assignment_sketches s
         JOIN assignments a ON a.id = s.assignment_id
         JOIN work_taskings t ON t.id = a.tasking_id
        WHERE s.id = $1 AND t.work_kind = $2 AND t.work_id = $3
          AND t.organization_id = $4 AND t.mode = $5`,
      [sketchId, kind, workId, tenant.organizationId, tenant.mode],
    );
    return row ? { contentType: row.content_type, bytes: row.bytes } : null;
  }

  /** A sketch of the member's own submission; anyone else's is NOT_FOUND. */
  async own(
    member: Member,
    mode: Tenant['mode'],
    assignmentPublicId: string,
    sketchPublicId: string,
  ): Promise<{ contentType: string; bytes: Buffer }> {
    const assignmentId = parsePublicId('assignment', assignmentPublicId);
    const sketchId = parsePublicId('sketch', sketchPublicId);
    const [row] =
      assignmentId === null || sketchId === null
        ? []
        : await this.sql.rows<{ content_type: string; bytes: Buffer }>(
            `SELECT s.content_type, s.bytes FROM assignment_sketches s
               JOIN assignments a ON a.id = s.assignment_id
              WHERE s.id = $1 AND a.id = $2 AND a.user_id = $3 AND a.mode = $4`,
            [sketchId, assignmentId, member.userId, mode],
          );
    if (!row) throw AppError.notFound('sketch', sketchPublicId);
    return { contentType: row.content_type, bytes: row.bytes };
  }
}
