import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { ANALYSIS_PRIORITIES, type AnalysisPriority, type AnalysisType } from '#engines';
import { AnalysesRepository } from './analyses.repository.js';

/** Measured figures are re-read at most this often (every submit would otherwise pay for them). */
const MEASURE_EVERY_MS = 5_000;
/** Completions over this window give the processing rate and the mean duration per type. */
const WINDOW_MS = 15 * 60_000;
/** Fewer completions than this in the window and the figures are not trusted: the model stands in. */
const MIN_MEASURED = 3;
/** Time beyond the steps the model allows for queueing, the relay and fetching the material. */
const BASE_ALLOWANCE_MS = 2_000;
const PER_ITEM_ALLOWANCE_MS = 1_000;

/** What an estimate needs to know of a new analysis. */
export interface EstimateRequest {
  analysisType: AnalysisType;
  priority: AnalysisPriority;
  stepCount: number;
  materialCount: number;
}

interface Measured {
  at: number;
  /** Analyses completed per millisecond across every worker, or null when too few to say. */
  ratePerMs: number | null;
  meanDurationMs: Map<AnalysisType, number>;
}

/** BullMQ priority (lower runs first) of each analysis priority. */
export const QUEUE_PRIORITY: Record<AnalysisPriority, number> = {
  urgent: 1,
  high: 2,
  medium: 3,
  low: 4,
};

/**
 * Estimated completion of new analyses from the work ahead of them in the
 * queue — every queued analysis of the same or a higher priority (the queue
 * runs higher priorities first), and those already running — and what the
 * deployment has measured: the rate analyses complete at and how long each
 * type takes. Until enough has completed to measure, the engine's steps at
 * SIMULATED_STEP_MS and WORKER_CONCURRENCY stand in.
 */
@Injectable()
export class AnalysisEstimates {
  private measured: Measured | null = null;

  constructor(
    private readonly analyses: AnalysesRepository,
    private readonly settings: AppSettings,
  ) {}

  /** One estimate per request, in order; later items of one batch queue behind earlier ones. */
  async estimate(requests: readonly EstimateRequest[], now = new Date()): Promise<Date[]> {
    const [measured, queue] = await Promise.all([this.measure(now), this.queue()]);
    const added = new Map<AnalysisPriority, number>();
    return requests.map((request) => {
      const ahead = aheadOf(request.priority, queue.queued, added) + queue.processing;
      added.set(request.priority, (added.get(request.priority) ?? 0) + 1);
      const ownMs =
        measured.meanDurationMs.get(request.analysisType) ??
        request.stepCount * this.settings.simulatedStepMs +
          BASE_ALLOWANCE_MS +
          request.materialCount * PER_ITEM_ALLOWANCE_MS;
      const slots = this.settings.workerConcurrency;
      const waiting = Math.max(0, ahead - slots + 1);
      const waitMs =
        waiting === 0
          ? 0
          : measured.ratePerMs !== null
            ? waiting / measured.ratePerMs
            : Math.ceil(waiting / slots) * ownMs;
      return new Date(now.getTime() + waitMs + ownMs);
    });
  }

  private async queue(): Promise<{ queued: Map<string, number>; processing: number }> {
    const rows = await this.analyses.queueAcrossTenants();
    const queued = new Map<string, number>();
    let processing = 0;
    for (const row of rows) {
      if (row.status === 'queued') queued.set(row.priority, row.count);
      else processing += row.count;
    }
    return { queued, processing };
  }

  private async measure(now: Date): Promise<Measured> {
    if (this.measured && now.getTime() - this.measured.at < MEASURE_EVERY_MS) return this.measured;
    const since = new Date(now.getTime() - WINDOW_MS);
    const rows = await this.analyses.completionsAcrossTenants(since);
    const completed = rows.reduce((sum, row) => sum + row.completed, 0);
    const firstAt = Math.min(...rows.map((row) => row.firstAt.getTime()));
    // The rate over the time completions were seen (at least a minute, so one burst is no rate).
    const spanMs = Math.max(60_000, now.getTime() - firstAt);
    this.measured = {
      at: now.getTime(),
      ratePerMs: completed >= MIN_MEASURED ? completed / spanMs : null,
      meanDurationMs: new Map(
        rows
          .filter((row) => row.completed >= MIN_MEASURED)
          .map((row) => [row.analysisType, row.meanMs]),
      ),
    };
    return this.measured;
  }
}

/** Queued analyses that run before one of `priority`: those of a higher or the same priority. */
function aheadOf(
  priority: AnalysisPriority,
  queued: ReadonlyMap<string, number>,
  added: ReadonlyMap<AnalysisPriority, number>,
): number {
  return ANALYSIS_PRIORITIES.filter((p) => QUEUE_PRIORITY[p] <= QUEUE_PRIORITY[priority]).reduce(
    (sum, p) => sum + (queued.get(p) ?? 0) + (added.get(p) ?? 0),
    0,
  );
}
