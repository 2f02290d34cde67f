import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, parsePublicId, sniffContentType, type Tenant } from '#common';
import type { KeysetPage, PageRequest } from '#database';
import { TargetPhotosRepository } from '../targets/target-photos.repository.js';
import { TargetPool } from '../targets/index.js';
import { AssignmentSketchesRepository } from '../tasking/assignment-sketches.repository.js';
import { AssignmentsRepository } from '../tasking/assignments.repository.js';
import { blindCandidates, type BlindCandidate } from './candidates.js';
import type { JudgeCaller, JudgingTask, JudgingTaskStatus } from './judging-task.js';
import { JudgingTasksRepository } from './judging-tasks.repository.js';

/** One analyst's submission as the judge sees it: labelled A, B, …, never whose or on what. */
export interface BlindSubmission {
  label: string;
  descriptors: string[];
  coordinates: { latitude: number; longitude: number } | null;
  notes: string | null;
  sketches: { id: string; contentType: string }[];
}

/** A candidate as shown, with the types of the photos shown. */
export interface ShownCandidate extends BlindCandidate {
  photos: { id: string; contentType: string }[];
}

/** What the judge reads: the task, its candidates as shown and the anonymised submissions. */
export interface JudgingTaskView {
  task: JudgingTask;
  candidates: ShownCandidate[];
  submissions: BlindSubmission[];
}

/** Bytes served to the judge, with the type the bytes themselves say. */
export interface ServedFile {
  contentType: string;
  bytes: Buffer;
}

/**
 * The judge's reads of their judging tasks: only the tasks given to them
 * (an admin person may read every task of the organisation), in the
 * tenant of their token; anything else is 404.
 */
@Injectable()
export class JudgingTasks {
  constructor(
    private readonly tasks: JudgingTasksRepository,
    private readonly assignments: AssignmentsRepository,
    private readonly sketches: AssignmentSketchesRepository,
    private readonly photos: TargetPhotosRepository,
    private readonly pool: TargetPool,
  ) {}

  async get(caller: JudgeCaller, publicId: string): Promise<JudgingTask> {
    const uuid = parsePublicId('judgingTask', publicId);
    if (uuid === null) throw AppError.notFound('judging task', publicId);
    const task = await this.tasks.find(caller, uuid);
    if (!task || (!caller.isAdmin && task.judgeUserId !== caller.userId)) {
      throw AppError.notFound('judging task', publicId);
    }
    return task;
  }

  /** The task with its candidates as shown and the submissions, anonymised. */
  async view(caller: JudgeCaller, publicId: string): Promise<JudgingTaskView> {
    const task = await this.get(caller, publicId);
    return this.viewOf(task);
  }

  async viewOf(task: JudgingTask): Promise<JudgingTaskView> {
    const candidates = blindCandidates(task.candidates);
    const photoIds = candidates.flatMap((c) => c.photoIds);
    const types = await this.photos.typesOf(photoIds);
    return {
      task,
      candidates: candidates.map((c) => ({
        ...c,
        photos: c.photoIds.map((id) => ({
          id,
          contentType: types.get(id) ?? 'application/octet-stream',
        })),
      })),
      submissions: await this.submissions(task),
    };
  }

  /** The caller's own judging tasks (`judge_user_id`), newest first; `status` filters. */
  async page(
    caller: JudgeCaller,
    status: JudgingTaskStatus | undefined,
    request: PageRequest,
  ): Promise<KeysetPage<JudgingTask>> {
    return this.tasks.page(caller, caller.userId, status, request);
  }

  /** Photo `position` (1-based, as shown) of a candidate. */
  async candidatePhoto(
    caller: JudgeCaller,
    publicId: string,
    candidatePublicId: string,
    position: number,
  ): Promise<ServedFile> {
    const task = await this.get(caller, publicId);
    const candidateId = parsePublicId('candidate', candidatePublicId);
    const candidate = blindCandidates(task.candidates).find((c) => c.id === candidateId);
    const photoId = candidate?.photoIds[position - 1];
    if (!candidate || photoId === undefined) throw AppError.notFound('photo', `${position}`);
    const photo = await this.pool.photo(task, photoId);
    if (!photo) throw AppError.notFound('photo', `${position}`);
    return { contentType: await servedType(photo.bytes, photo.contentType), bytes: photo.bytes };
  }

  /** A sketch of one of the task's submissions. */
  async sketch(caller: JudgeCaller, publicId: string, sketchPublicId: string): Promise<ServedFile> {
    const task = await this.get(caller, publicId);
    const sketchId = parsePublicId('sketch', sketchPublicId);
    if (sketchId === null) throw AppError.notFound('sketch', sketchPublicId);
    const sketch = await this.sketches.findSubmittedOn(task, task.taskingId, sketchId);
    if (!sketch) throw AppError.notFound('sketch', sketchPublicId);
    return {
      contentType: await servedType(sketch.bytes, sketch.contentType),
      bytes: sketch.bytes,
    };
  }

  /**
   * The submissions on the tasking, in an order that says nothing of who or
   * when (by a hash of the task and the assignment), labelled A, B, ….
   */
  private async submissions(task: JudgingTask): Promise<BlindSubmission[]> {
    const assignments = await this.assignments.judgedSubmissionsOn(task, task.taskingId);
    const sketches = await this.sketches.listOf(assignments.map((a) => a.id));
    const order = (id: string) => createHash('sha256').update(`${task.id}:${id}`).digest('hex');
    return assignments
      .map((a) => ({ a, key: order(a.id) }))
      .sort((x, y) => (x.key < y.key ? -1 : 1))
      .map(({ a }, index) => ({
        label: submissionLabel(index),
        descriptors: a.descriptors ?? [],
        coordinates:
          a.latitude !== null && a.longitude !== null
            ? { latitude: a.latitude, longitude: a.longitude }
            : null,
        notes: a.notes,
        sketches: sketches
          .filter((s) => s.assignmentId === a.id)
          .map((s) => ({ id: s.id, contentType: s.contentType })),
      }));
  }
}

/** A, B, …, Z, then AA, AB, … (at most 20 analysts work on one piece). */
export function submissionLabel(index: number): string {
  const letter = (i: number) => String.fromCharCode(65 + i);
  return index < 26 ? letter(index) : letter(Math.floor(index / 26) - 1) + letter(index % 26);
}

const RASTER_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * The type to serve stored bytes as, read from the bytes: a raster image as
 * what it sniffs as; SVG (text, which sniffing cannot name) only when it was
 * stored as SVG and still reads as text; anything else as opaque bytes.
 */
export async function servedType(bytes: Uint8Array, stored: string | null): Promise<string> {
  const sniffed = await sniffContentType(bytes);
  if (sniffed !== null && RASTER_TYPES.has(sniffed)) return sniffed;
  if (stored === 'image/svg+xml' && (sniffed === 'text/xml' || sniffed === 'text/plain')) {
    return 'image/svg+xml';
  }
  if (sniffed === 'image/svg+xml') return sniffed;
  return 'application/octet-stream';
}

/** Tenant check for a caller built from a token and a member. */
export function judgeCaller(
  tenant: Tenant,
  member: { userId: string; roles: readonly string[] },
): JudgeCaller {
  return {
    organizationId: tenant.organizationId,
    mode: tenant.mode,
    userId: member.userId,
    isAdmin: member.roles.includes('admin'),
  };
}
