import { toPublicId } from '#common';
import type { JudgingTaskView } from '#analysts';
import type { JudgingTaskDto } from './judging-task-v2.dto.js';

/**
 * The judge's view of a task. Blind: no analyst, work, target or pool id;
 * candidates in their stored random order with ids made for this task;
 * photos and sketches under this task's URLs only.
 */
export function toJudgingTaskDto(view: JudgingTaskView, publicUrl: string): JudgingTaskDto {
  const { task } = view;
  const id = toPublicId('judgingTask', task.id);
  const base = `${publicUrl}/v2/judging-tasks/${id}`;
  const dto: JudgingTaskDto = {
    judging_task_id: id,
    kind: task.kind,
    status: task.status,
    created_at: task.createdAt.toISOString(),
    ranked_at: task.rankedAt?.toISOString() ?? null,
    submissions: view.submissions.map((s) => ({
      submission_id: s.label,
      descriptors: s.descriptors,
      coordinates: s.coordinates,
      notes: s.notes,
      sketches: s.sketches.map((sketch) => ({
        url: `${base}/sketches/${toPublicId('sketch', sketch.id)}`,
        content_type: sketch.contentType,
      })),
    })),
    candidates: view.candidates.map((c) => {
      const candidateId = toPublicId('candidate', c.id);
      return {
        candidate_id: candidateId,
        description: c.description,
        descriptors: c.descriptors,
        coordinates: c.coordinates,
        photos: c.photos.map((photo, index) => ({
          url: `${base}/candidates/${candidateId}/photos/${index + 1}`,
          content_type: photo.contentType,
        })),
      };
    }),
  };
  if (task.ranking !== null) dto.ranking = task.ranking.map((c) => toPublicId('candidate', c));
  return dto;
}
