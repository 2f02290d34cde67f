import { type Assignment, assignmentPublicId, workPublicId } from '#analysts';
import { toPublicId } from '#common';
import type { AssignmentDto } from './assignment-v2.dto.js';

/**
 * An assignment as its analyst reads it: blind until the work is closed,
 * then with the target and the nonce that opens the commitment.
 */
export function toAssignmentDto(assignment: Assignment, publicUrl: string): AssignmentDto {
  const { tasking } = assignment;
  const revealed = tasking.closedAt !== null;
  const id = assignmentPublicId(assignment);
  return {
    assignment_id: id,
    work_id: workPublicId(tasking),
    kind: tasking.kind,
    target_reference_number: tasking.referenceNumber,
    target_commitment: tasking.commitment,
    question_type: tasking.questionType,
    modality: tasking.modality,
    duration_minutes: tasking.durationMinutes,
    deadline: assignment.deadline.toISOString(),
    status: assignment.status,
    submission:
      assignment.submittedAt === null
        ? null
        : {
            descriptors: assignment.descriptors ?? [],
            coordinates:
              assignment.latitude !== null && assignment.longitude !== null
                ? { latitude: assignment.latitude, longitude: assignment.longitude }
                : null,
            notes: assignment.notes,
            confidence: assignment.confidence,
            sketches: assignment.sketches.map((sketch) => {
              const sketchId = toPublicId('sketch', sketch.id);
              return {
                sketch_id: sketchId,
                content_type: sketch.contentType,
                byte_size: sketch.byteSize,
                url: `${publicUrl}/v2/assignments/${id}/sketches/${sketchId}`,
              };
            }),
            submitted_at: assignment.submittedAt.toISOString(),
          },
    target: revealed ? tasking.target : null,
    target_nonce: revealed ? tasking.nonce : null,
    created_at: assignment.createdAt.toISOString(),
    declined_at: assignment.declinedAt?.toISOString() ?? null,
  };
}
