import { toPublicId } from '#common';
import type { BatchEntity } from '#work';
import type { BatchCountsDto, BatchStatus, BatchStatusV1Dto } from './batch-v1.dto.js';

/** What a batch's status needs of each item, whatever its kind. */
export interface BatchItem {
  status: string;
  progress: number;
}

/** Every status of the batch's kind, counted from zero. */
const COUNTS_OF: Record<BatchEntity['kind'], Record<string, number>> = {
  sessions: { initiated: 0, in_progress: 0, completed: 0, failed: 0 },
  analyses: { queued: 0, processing: 0, completed: 0, failed: 0 },
  dowsing: { pending: 0, completed: 0, failed: 0 },
};

/** Statuses of work not yet finished, of any kind. */
const RUNNING = new Set(['initiated', 'in_progress', 'queued', 'processing', 'pending']);

export function toBatchStatusV1(batch: BatchEntity, items: readonly BatchItem[]): BatchStatusV1Dto {
  const counts: Record<string, number> = { ...COUNTS_OF[batch.kind] };
  for (const item of items) counts[item.status] = (counts[item.status] ?? 0) + 1;
  const total = items.length;
  const progress =
    total === 0 ? 0 : Math.round(items.reduce((sum, item) => sum + item.progress, 0) / total);
  const running = items.filter((item) => RUNNING.has(item.status)).length;
  return {
    batch_id: toPublicId('batch', batch.id),
    kind: batch.kind,
    status: statusOf(running, counts.failed ?? 0, total),
    total,
    counts: counts as unknown as BatchCountsDto,
    progress,
    created_at: batch.createdAt.toISOString(),
  };
}

function statusOf(running: number, failed: number, total: number): BatchStatus {
  if (running > 0) return 'processing';
  if (failed === 0) return 'completed';
  return failed === total ? 'failed' : 'completed_with_failures';
}
