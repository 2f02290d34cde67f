/** Which cases a rollup read counts. */
export interface RollupFilters {
  type: string | null;
  /** Inclusive. */
  dateFrom: Date | null;
  /** Exclusive. */
  dateBefore: Date | null;
  /** Cases naming this analyst (`analysts`), each once. */
  analystId: string | null;
}

const DAY_MS = 86_400_000;

/** The periods the rollups count cases per (migration 1764097200000); `all` has one period. */
export type RollupGrain = 'day' | 'week' | 'month' | 'all';

/** The rollup rows of one grain whose period starts in [from, before) (UTC days; null: unbounded). */
export interface RollupSegment {
  grain: RollupGrain;
  from: string | null;
  before: string | null;
}

/**
 * How a date range splits: the fewest rollup rows that tile its whole UTC
 * days — whole months (or, for a weekly series, whole ISO weeks; for a daily
 * one, days) and the days at either end — and the parts of a day at either
 * end a date-time bound cuts (at most two days' cases, read from
 * `history_cases` through its tenant-and-date index). An unbounded range
 * with no series reads the single `all` period.
 */
export interface RangeSplit {
  segments: RollupSegment[];
  edges: { from: Date; before: Date }[];
}

export function splitRange(
  dateFrom: Date | null,
  dateBefore: Date | null,
  bucket: 'day' | 'week' | 'month' | null = null,
): RangeSplit {
  const fullFrom = dateFrom && ceilDay(dateFrom);
  const fullBefore = dateBefore && floorDay(dateBefore);
  if (fullFrom && fullBefore && fullFrom >= fullBefore) {
    return {
      segments: [],
      edges: dateFrom! < dateBefore! ? [{ from: dateFrom!, before: dateBefore! }] : [],
    };
  }
  const edges: RangeSplit['edges'] = [];
  if (dateFrom && fullFrom && dateFrom < fullFrom) edges.push({ from: dateFrom, before: fullFrom });
  if (dateBefore && fullBefore && fullBefore < dateBefore) {
    edges.push({ from: fullBefore, before: dateBefore });
  }
  return { segments: tile(fullFrom, fullBefore, bucket), edges };
}

/** The segments covering whole days [from, before): coarse periods inside, days at the ends. */
function tile(
  from: Date | null,
  before: Date | null,
  bucket: 'day' | 'week' | 'month' | null,
): RollupSegment[] {
  if (from === null && before === null && bucket === null) {
    return [{ grain: 'all', from: null, before: null }];
  }
  const days = (lo: Date | null, hi: Date | null): RollupSegment => ({
    grain: 'day',
    from: lo && dayOf(lo),
    before: hi && dayOf(hi),
  });
  if (bucket === 'day') return [days(from, before)];
  const grain = bucket === 'week' ? 'week' : 'month';
  const coarseFrom = from && ceilPeriod(grain, from);
  const coarseBefore = before && floorPeriod(grain, before);
  if (coarseFrom && coarseBefore && coarseFrom >= coarseBefore) return [days(from, before)];
  const segments: RollupSegment[] = [];
  if (from && coarseFrom! > from) segments.push(days(from, coarseFrom));
  segments.push({
    grain,
    from: coarseFrom && dayOf(coarseFrom),
    before: coarseBefore && dayOf(coarseBefore),
  });
  if (before && coarseBefore! < before) segments.push(days(coarseBefore, before));
  return segments;
}

/** The start of the week (Monday, as date_trunc cuts ISO weeks) or month holding the UTC day `at`. */
function floorPeriod(grain: 'week' | 'month', at: Date): Date {
  if (grain === 'month') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  return new Date(at.getTime() - ((at.getUTCDay() + 6) % 7) * DAY_MS);
}

function ceilPeriod(grain: 'week' | 'month', at: Date): Date {
  const floor = floorPeriod(grain, at);
  if (floor.getTime() === at.getTime()) return floor;
  return grain === 'month'
    ? new Date(Date.UTC(floor.getUTCFullYear(), floor.getUTCMonth() + 1, 1))
    : new Date(floor.getTime() + 7 * DAY_MS);
}

function floorDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

function ceilDay(at: Date): Date {
  return new Date(Math.ceil(at.getTime() / DAY_MS) * DAY_MS);
}

function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * What the rollups count for a group of cases: one row of a rollup read,
 * summed per type, subtype, modality, work status and (for a series) the
 * first day of its bucket; '' for a missing subtype or modality, and for
 * what a series does not group by.
 */
export interface RollupTally {
  type: string;
  subtype: string;
  modality: string;
  /** The bucket's first day (`YYYY-MM-DD`) in a series, else null. */
  day: string | null;
  workStatus: string;
  cases: number;
  verified: number;
  hits: number;
  partials: number;
  misses: number;
  confidenceSum: number;
  confidenceCount: number;
  /** Σ chance baseline over the verified cases that record one. */
  baselineSum: number;
  /** How many verified cases record a baseline (the others take their kind's default). */
  baselineCount: number;
}
