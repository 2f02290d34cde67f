import { rateOf, type Rate } from '#statistics';
import { summarizeCases, type GroupSummary } from './analytics-summary.js';
import type { TallyRow } from './case-tally.js';
import type { EngineRow, MeasuredKind } from './work-performance.js';

export const NO_SAIC_SCORES =
  'This kind of work records no SAIC scores: only sessions are judged descriptor by descriptor (validation_metrics).';

export interface EnginePerformance {
  kind: MeasuredKind;
  engine: string;
  work: number;
  failed: number;
  hitRate: Rate | null;
  /** Mean SAIC accuracy and reliability of the work that records them; null with `scoresNote` saying why. */
  accuracy: number | null;
  reliability: number | null;
  scoresNote: string | null;
  /** Seconds from creation to completion of the completed work; null when none completed. */
  processingSeconds: { p50: number; p90: number; p99: number } | null;
}

export interface AnalystPerformance extends GroupSummary {
  analystId: string;
}

export interface Performance {
  byEngine: EnginePerformance[];
  byAnalyst: AnalystPerformance[];
  byType: ReturnType<typeof summarizeCases>['byType'];
  byModality: ReturnType<typeof summarizeCases>['byModality'];
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

export function enginePerformanceOf(row: EngineRow): EnginePerformance {
  const verified = Number(row.verified);
  const scored = Number(row.scored);
  return {
    kind: row.kind,
    engine: row.engine,
    work: Number(row.work),
    failed: Number(row.failed),
    hitRate:
      verified === 0
        ? null
        : rateOf(Number(row.hits), verified, round(Number(row.baseline_sum) / verified, 6)),
    accuracy: scored === 0 || row.accuracy === null ? null : round(Number(row.accuracy), 6),
    reliability:
      scored === 0 || row.reliability === null ? null : round(Number(row.reliability), 6),
    scoresNote:
      row.kind !== 'session'
        ? NO_SAIC_SCORES
        : scored === 0
          ? 'None of this engine’s recent sessions completed with SAIC scores.'
          : null,
    processingSeconds:
      row.seconds === null || row.seconds.length !== 3
        ? null
        : {
            p50: round(row.seconds[0]!, 3),
            p90: round(row.seconds[1]!, 3),
            p99: round(row.seconds[2]!, 3),
          },
  };
}

/** Per analyst, most cases first (then by id); the analyst rows carry `analyst` beside the tally. */
export function analystPerformanceOf(
  rows: readonly (TallyRow & { analyst: string })[],
): AnalystPerformance[] {
  const byAnalyst = new Map<string, TallyRow[]>();
  for (const row of rows) byAnalyst.set(row.analyst, [...(byAnalyst.get(row.analyst) ?? []), row]);
  return [...byAnalyst]
    .map(([analystId, own]) => ({ analystId, ...summarizeCases(own).total }))
    .sort((a, b) => b.cases - a.cases || a.analystId.localeCompare(b.analystId));
}
