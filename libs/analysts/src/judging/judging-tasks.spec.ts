import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { newUuid, toPublicId, type Tenant } from '#common';
import type { TargetPhotosRepository } from '../targets/target-photos.repository.js';
import type { TargetPool } from '../targets/target-pool.js';
import type { AssignmentSketchesRepository } from '../tasking/assignment-sketches.repository.js';
import type { AssignmentsRepository, JudgedSubmission } from '../tasking/assignments.repository.js';
import type { JudgeCaller, JudgingTask, StoredCandidate } from './judging-task.js';
import { JudgingTasks } from './judging-tasks.js';
import type { JudgingTasksRepository } from './judging-tasks.repository.js';
import { refusal } from '#common/testing';

/**
 * What a judge reads of a judging task, with the repositories and the pool
 * faked: only their own tasks, candidates that do not tell the true one
 * apart, and submissions that do not say whose they are.
 */

const tenant: Tenant = { organizationId: newUuid(), mode: 'live' };
const judge = newUuid();
const caller: JudgeCaller = { ...tenant, userId: judge, isAdmin: false };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077', 'hex');

function candidate(overrides: Partial<StoredCandidate> = {}): StoredCandidate {
  return {
    id: randomUUID(),
    target_id: newUuid(),
    description: 'A decoy',
    descriptors: ['land'],
    latitude: 1,
    longitude: 2,
    photo_ids: [newUuid(), newUuid()],
    ...overrides,
  };
}

/** A session's true target is text: no pool target, no photos, no coordinates, no descriptors. */
const truth = candidate({
  target_id: null,
  description: 'The lighthouse',
  descriptors: [],
  latitude: null,
  longitude: null,
  photo_ids: [],
});

function task(overrides: Partial<JudgingTask> = {}): JudgingTask {
  const candidates = [candidate(), truth, candidate()];
  return {
    id: newUuid(),
    organizationId: tenant.organizationId,
    mode: tenant.mode,
    taskingId: newUuid(),
    kind: 'session',
    workPublicId: toPublicId('session', newUuid()),
    modality: 'visual',
    judgeUserId: judge,
    status: 'pending',
    candidates,
    trueCandidateId: truth.id,
    ranking: null,
    rankedAt: null,
    eventSequence: 1,
    createdAt: new Date(),
    ...overrides,
  };
}

function submission(userId: string, descriptors: string[]): JudgedSubmission {
  return { id: newUuid(), userId, descriptors, latitude: null, longitude: null, notes: null };
}

function reads(stored: JudgingTask | null, submissions: JudgedSubmission[] = []) {
  const tasks = { find: vi.fn(() => Promise.resolve(stored)) };
  const assignments = { judgedSubmissionsOn: vi.fn(() => Promise.resolve(submissions)) };
  const sketches = {
    listOf: vi.fn(() => Promise.resolve([])),
    findSubmittedOn: vi.fn(() => Promise.resolve({ contentType: 'image/png', bytes: PNG })),
  };
  const photos = { typesOf: vi.fn(() => Promise.resolve(new Map())) };
  const pool = {
    photo: vi.fn(() => Promise.resolve({ contentType: 'image/png', bytes: PNG })),
  };
  const judgingTasks = new JudgingTasks(
    tasks as unknown as JudgingTasksRepository,
    assignments as unknown as AssignmentsRepository,
    sketches as unknown as AssignmentSketchesRepository,
    photos as unknown as TargetPhotosRepository,
    pool as unknown as TargetPool,
  );
  return { judgingTasks, tasks, sketches, pool };
}

describe('JudgingTasks.get', () => {
  it('gives a judge their own task and an admin any of the organisation’s; anyone else 404', async () => {
    const own = task();
    const { judgingTasks, tasks } = reads(own);
    const id = toPublicId('judgingTask', own.id);
    expect(await judgingTasks.get(caller, id)).toBe(own);
    expect(tasks.find).toHaveBeenCalledWith(caller, own.id);

    const others = reads(task({ judgeUserId: newUuid() }));
    expect((await refusal(others.judgingTasks.get(caller, id))).code).toBe('NOT_FOUND');
    expect(await others.judgingTasks.get({ ...caller, isAdmin: true }, id)).toBeDefined();
  });
});

describe('JudgingTasks.view', () => {
  it('shows only the material every candidate has, and never which one is true', async () => {
    const own = task();
    const { judgingTasks } = reads(own);
    const view = await judgingTasks.view(caller, toPublicId('judgingTask', own.id));
    for (const shown of view.candidates) {
      expect(shown).not.toHaveProperty('target_id');
      // The truth has no photos, coordinates or descriptors: so none is shown for any.
      expect(shown).toMatchObject({ photoIds: [], photos: [], coordinates: null, descriptors: [] });
    }
    expect(view.candidates.map((c) => c.id)).toEqual(view.task.candidates.map((c) => c.id));
  });

  it('labels the submissions A, B, … in an order that says nothing of who made them', async () => {
    const analysts = [newUuid(), newUuid(), newUuid()];
    const submissions = analysts.map((id, i) => submission(id, [`word${i}`]));
    const own = task();
    const forward = await reads(own, submissions).judgingTasks.viewOf(own);
    const backward = await reads(own, [...submissions].reverse()).judgingTasks.viewOf(own);

    expect(forward.submissions.map((s) => s.label)).toEqual(['A', 'B', 'C']);
    // The order is the task's own, whatever order the submissions were read in.
    expect(backward.submissions).toEqual(forward.submissions);
    for (const shown of forward.submissions) {
      for (const id of analysts) expect(JSON.stringify(shown)).not.toContain(id);
    }
  });
});

describe('JudgingTasks files', () => {
  it('serves a candidate’s photo by its shown position, and nothing past what is shown', async () => {
    const shared = candidate({ photo_ids: [newUuid()] });
    const own = task({ candidates: [candidate(), shared, candidate()] });
    const { judgingTasks, pool } = reads(own);
    const id = toPublicId('judgingTask', own.id);
    const served = await judgingTasks.candidatePhoto(
      caller,
      id,
      toPublicId('candidate', shared.id),
      1,
    );
    expect(served.contentType).toBe('image/png');
    expect(pool.photo).toHaveBeenCalledWith(own, shared.photo_ids[0]);
    const past = await refusal(
      judgingTasks.candidatePhoto(caller, id, toPublicId('candidate', own.candidates[0]!.id), 2),
    );
    expect(past.code).toBe('NOT_FOUND');
  });

  it('serves a sketch only from the task’s own work', async () => {
    const own = task();
    const { judgingTasks, sketches } = reads(own);
    const sketchId = newUuid();
    await judgingTasks.sketch(
      caller,
      toPublicId('judgingTask', own.id),
      toPublicId('sketch', sketchId),
    );
    expect(sketches.findSubmittedOn).toHaveBeenCalledWith(own, own.taskingId, sketchId);
  });
});
