import type { RollupTally } from '#history';
import { rateOf, type Rate } from '#statistics';
import { summarizeCases, type GroupSummary } from './analytics-summary.js';
import type { EngineFigures, MeasuredKind } from './work-performance.js';

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

export function enginePerformanceOf(row: EngineFigures): EnginePerformance {
  const { verified, scored } = row;
  return {
    kind: row.kind,
    engine: row.engine,
    work: row.work,
    failed: row.failed,
    hitRate:
      verified === 0 ? null : rateOf(row.hits, verified, round(row.baselineSum / verified, 6)),
    accuracy: scored === 0 || row.accuracy === null ? null : round(row.accuracy, 6),
    reliability: scored === 0 || row.reliability === null ? null : round(row.reliability, 6),
    scoresNote:
      row.kind !== 'session'
        ? NO_SAIC_SCORES
        : scored === 0
          ? 'None of this engine’s recent sessions completed with SAIC scores.'
          : null,
    processingSeconds:
      row.seconds === null
        ? null
        : {
            p50: round(row.seconds[0], 3),
            p90: round(row.seconds[1], 3),
            p99: round(row.seconds[2], 3),
          },
  };
}

/** Per analyst, most cases first (then by id); the analyst rows carry `analyst` beside the tally. */
export function analystPerformanceOf(
  rows: readonly (RollupTally & { analyst: string })[],
): AnalystPerformance[] {
  const byAnalyst = new Map<string, RollupTally[]>();
  for (const row of rows) byAnalyst.set(row.analyst, [...(byAnalyst.get(row.analyst) ?? []), row]);
  return [...byAnalyst]
    .map(([analystId, own]) => ({ analystId, ...summarizeCases(own).total }))
    .sort((a, b) => b.cases - a.cases || a.analystId.localeCompare(b.analystId));
}
