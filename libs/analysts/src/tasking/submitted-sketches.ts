import { Injectable } from '@nestjs/common';
import type { Member } from '#auth';
import { AppError, parsePublicId, type Tenant } from '#common';
import { AssignmentSketchesRepository } from './assignment-sketches.repository.js';
import type { TaskedKind } from './tasking.js';

/**
 * Reading back the sketches analysts submitted: for the work's readers (its
 * results link them), and for the analyst who drew them. Stored as checked
 * and sanitised on upload (prepareSketch); served inert by the API.
 */
@Injectable()
export class SubmittedSketches {
  constructor(private readonly sketches: AssignmentSketchesRepository) {}

  /** A sketch an analyst submitted on a piece of work, for the work's readers. */
  ofWork(
    tenant: Tenant,
    kind: TaskedKind,
    workId: string,
    sketchId: string,
  ): Promise<{ contentType: string; bytes: Buffer } | null> {
    return this.sketches.findOnWork(tenant, kind, workId, sketchId);
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
    const sketch =
      assignmentId === null || sketchId === null
        ? null
        : await this.sketches.findOwn(
            { organizationId: member.organizationId, mode },
            member.userId,
            assignmentId,
            sketchId,
          );
    if (!sketch) throw AppError.notFound('sketch', sketchPublicId);
    return sketch;
  }
}
