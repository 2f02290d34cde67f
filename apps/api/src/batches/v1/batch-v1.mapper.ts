import { toPublicId } from '#common';
import type { BatchEntity, SessionEntity } from '#sessions';
import type { BatchCountsDto, BatchStatus, BatchStatusV1Dto } from './batch-v1.dto.js';

export function toBatchStatusV1(batch: BatchEntity, sessions: SessionEntity[]): BatchStatusV1Dto {
  const counts: BatchCountsDto = { initiated: 0, in_progress: 0, completed: 0, failed: 0 };
  for (const session of sessions) counts[session.status] += 1;
  const total = sessions.length;
  const progress =
    total === 0
      ? 0
      : Math.round(sessions.reduce((sum, session) => sum + session.progress, 0) / total);
  return {
    batch_id: toPublicId('batch', batch.id),
    kind: batch.kind,
    status: statusOf(counts, total),
    total,
    counts,
    progress,
    created_at: batch.createdAt.toISOString(),
  };
}

function statusOf(counts: BatchCountsDto, total: number): BatchStatus {
  if (counts.initiated + counts.in_progress > 0) return 'processing';
  if (counts.failed === 0) return 'completed';
  return counts.failed === total ? 'failed' : 'completed_with_failures';
}
