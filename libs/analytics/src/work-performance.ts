import type { SourceOutcome } from '#history';

/**
 * How much recent work performance reads per kind: the newest finished
 * pieces (completed or failed) of each kind, by the tenant-status-created
 * indexes — a bounded read however much work a tenant has done.
 */
export const PERFORMANCE_WORK_LIMIT = 2_000;

export const WORK_KINDS_MEASURED = ['session', 'analysis', 'dowsing_query'] as const;
export type MeasuredKind = (typeof WORK_KINDS_MEASURED)[number];

/** A finished piece of work as its lib's read model gives it (the SAIC scores: sessions only). */
export interface FinishedWork {
  id: string;
  engine: string;
  failed: boolean;
  /** Seconds from creation to completion; null unless completed with a completion time. */
  seconds: number | null;
  accuracy?: number | null;
  reliability?: number | null;
  /** Whether the work records validation metrics (sessions). */
  scored?: boolean;
}

/** One kind's newest finished work of one engine, summed: what EnginePerformance is made of. */
export interface EngineFigures {
  kind: MeasuredKind;
  engine: string;
  work: number;
  failed: number;
  /** The 50th, 90th and 99th percentiles of the completed work's seconds (percentile_cont); null when none. */
  seconds: [number, number, number] | null;
  /** Means over the work that records them; null when none does. */
  accuracy: number | null;
  reliability: number | null;
  scored: number;
  verified: number;
  hits: number;
  /** Σ chance baseline of the verified cases, the kind's default where a case records none. */
  baselineSum: number;
}

/**
 * One kind's newest finished work per engine, with its cases' verified
 * outcomes (`outcomes` by source id: the classified and the verified cases):
 * counts, processing-time percentiles of the completed ones, the mean SAIC
 * accuracy and reliability where the work records them, and hits among the
 * verified cases. Work whose case is classified is left out, as classified
 * cases are everywhere in analytics. Engines in first-seen order.
 */
export function engineFiguresOf(
  kind: MeasuredKind,
  work: readonly FinishedWork[],
  outcomes: ReadonlyMap<string, SourceOutcome>,
  defaultBaseline: number,
): EngineFigures[] {
  const byEngine = new Map<string, FinishedWork[]>();
  for (const piece of work) {
    if (outcomes.get(piece.id)?.classified === true) continue;
    byEngine.set(piece.engine, [...(byEngine.get(piece.engine) ?? []), piece]);
  }
  return [...byEngine].map(([engine, pieces]) => {
    const verified = pieces.flatMap((piece) => {
      const outcome = outcomes.get(piece.id);
      return outcome?.verdict ? [outcome] : [];
    });
    const seconds = pieces
      .map((piece) => piece.seconds)
      .filter((value): value is number => value !== null)
      .sort((a, b) => a - b);
    return {
      kind,
      engine,
      work: pieces.length,
      failed: pieces.filter((piece) => piece.failed).length,
      seconds:
        seconds.length === 0
          ? null
          : [percentile(seconds, 0.5), percentile(seconds, 0.9), percentile(seconds, 0.99)],
      accuracy: mean(pieces.map((piece) => piece.accuracy ?? null)),
      reliability: mean(pieces.map((piece) => piece.reliability ?? null)),
      scored: pieces.filter((piece) => piece.scored === true).length,
      verified: verified.length,
      hits: verified.filter((outcome) => outcome.verdict === 'hit').length,
      baselineSum: verified.reduce(
        (sum, outcome) => sum + (outcome.chanceBaseline ?? defaultBaseline),
        0,
      ),
    };
  });
}

/** PostgreSQL's percentile_cont over ascending values: linear between the two nearest ranks. */
export function percentile(sorted: readonly number[], fraction: number): number {
  const position = fraction * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sorted[below]!;
  if (below === above) return low;
  return low + (position - below) * (sorted[above]! - low);
}

/** The mean of the values present; null when none is. */
function mean(values: readonly (number | null)[]): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0
    ? null
    : present.reduce((sum, value) => sum + value, 0) / present.length;
}
