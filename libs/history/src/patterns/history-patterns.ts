import { adjustPValues, rateOf, WEEKDAYS, type Correction, type Rate } from '#statistics';

/**
 * Recurring descriptors, places and times across an organisation's history
 * (docs/history.md, "Patterns"), computed from the counts one SQL statement
 * returns (HistoryPatternsRepository#patternAggregates). Pure: no Nest, no I/O.
 *
 * - A descriptor's or a place's **lift** is its hit rate over the
 *   organisation's: (hits with it / verified with it) / (hits / verified),
 *   which is also its share among hits over its share among verified cases.
 *   Its p-value is the exact one-sided binomial P(X ≥ hits | verified, the
 *   organisation's hit rate) of that rate object.
 * - A weekday's, hour's or month's lift is its share of the cases over the
 *   uniform share (1/7, 1/24, the month's days / 365.2425); its p-value the
 *   binomial one of that share.
 * - Each of the three families is corrected with Benjamini–Hochberg: this
 *   is exploration over hundreds of candidate patterns, where Holm's
 *   family-wise promise would hide nearly all of them; BH keeps the expected
 *   share of false patterns among those called significant at 5 %.
 */
export const PATTERN_CORRECTION: Correction = 'benjamini-hochberg';
/** Adjusted p-values below this are called significant. */
export const PATTERN_SIGNIFICANCE_LEVEL = 0.05;
/** Newest cases of the filters one request looks at. */
export const PATTERN_WINDOW = 20_000;
/** Most terms and cells the statement returns (those with the most verified cases first). */
export const PATTERN_CANDIDATES = 2_000;
/** Most descriptor and place patterns listed. */
export const PATTERNS_LISTED = 50;
/** Below this many verified cases, hit-rate lifts rest on too little. */
export const FEW_VERIFIED = 30;
/** Hours need this many cases for 5 expected a bucket (the usual rule for a share test). */
const FEW_FOR_HOURS = 120;

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
] as const;
const MONTH_DAYS = [31, 28.2425, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const YEAR_DAYS = 365.2425;

export interface PatternCounts {
  cases: number;
  verified: number;
  hits: number;
}

/** What the statement returns. */
export interface PatternAggregates {
  totals: PatternCounts & {
    /** Mean recorded chance baseline of the verified cases (null: none recorded). */
    chance: number | null;
    located: number;
    first: string | null;
    last: string | null;
  };
  vocabulary: { distinct: number; mentions: number };
  terms: (PatternCounts & { term: string })[];
  cells_occupied: number;
  cells: (PatternCounts & {
    cell_row: number;
    cell_col: number;
    latitude: number;
    longitude: number;
  })[];
  times: { weekday: number | null; hour: number | null; month: number | null; cases: number }[];
}

export interface PatternSettings {
  minSupport: number;
  gridDegrees: number;
  window: number;
}

export interface HitAssociation {
  /** Hits among its verified cases, against the organisation's hit rate. */
  hitRate: Rate;
  /** hitRate / the organisation's hit rate. */
  lift: number;
  /** Its hits / all hits. */
  shareOfHits: number;
  /** Its verified cases / all verified cases. */
  shareOfVerified: number;
  pAdjusted: number;
  significant: boolean;
}

export interface DescriptorPattern {
  term: string;
  /** Cases listing it, of all cases, against a uniform pick from the terms seen. */
  share: Rate;
  /** null when fewer than min_support of its cases are verified, or nothing is to compare. */
  hits: HitAssociation | null;
}

export interface PlacePattern {
  cell: { south: number; west: number; north: number; east: number };
  /** Mean position of its cases. */
  centroid: { latitude: number; longitude: number };
  /** Its cases, of all located cases, against a uniform spread over the occupied cells. */
  share: Rate;
  hits: HitAssociation | null;
}

export interface TimeBucket {
  bucket: string;
  /** Its cases, of all cases, against the uniform share. */
  share: Rate;
  lift: number;
  pAdjusted: number;
  significant: boolean;
}

export interface HistoryPatterns {
  window: {
    limit: number;
    bounded: boolean;
    firstDate: Date | null;
    lastDate: Date | null;
  };
  correction: Correction;
  significanceLevel: number;
  minSupport: number;
  cases: number;
  verified: number;
  /** Hits among verified cases against their mean recorded chance baseline (null: none). */
  hitRate: Rate | null;
  descriptors: { distinctTerms: number; familySize: number; patterns: DescriptorPattern[] };
  places: {
    gridDegrees: number;
    located: number;
    cellsOccupied: number;
    familySize: number;
    patterns: PlacePattern[];
  };
  times: {
    familySize: number;
    weekday: TimeBucket[];
    hour: TimeBucket[];
    month: TimeBucket[];
  };
  warnings: string[];
}

export function historyPatterns(
  aggregates: PatternAggregates,
  settings: PatternSettings,
): HistoryPatterns {
  const { totals } = aggregates;
  const warnings: string[] = [];
  const n = totals.cases;
  const bounded = n >= settings.window;
  if (n === 0) warnings.push('No cases match: there is nothing to look at.');
  if (bounded) {
    warnings.push(
      `Only the newest ${settings.window.toLocaleString('en')} cases of the filters are looked at; narrow date_from and date_to to look further back.`,
    );
  }
  // The organisation's hit rate is the baseline of every hit-rate lift.
  const orgHitRate = totals.verified === 0 ? null : totals.hits / totals.verified;
  const comparable = orgHitRate !== null && orgHitRate > 0 && orgHitRate < 1;
  if (n > 0 && !comparable) {
    warnings.push(
      totals.verified === 0
        ? 'No case has a verified outcome: descriptors and places are not compared with hits.'
        : `All ${totals.verified} verified cases are ${totals.hits === 0 ? 'misses or partials' : 'hits'}: there is no hit rate to compare descriptors and places with.`,
    );
  } else if (comparable && totals.verified < FEW_VERIFIED) {
    warnings.push(
      `Only ${totals.verified} verified cases: hit-rate lifts of descriptors and places rest on too few outcomes to say much.`,
    );
  }
  const association = hitAssociations(totals, comparable ? orgHitRate : null, settings.minSupport);

  // Descriptors.
  const { distinct, mentions } = aggregates.vocabulary;
  const termBaseline = n === 0 || distinct === 0 ? 0 : Math.min(1, mentions / (n * distinct));
  if (n > 0 && distinct === 0) warnings.push('No case lists descriptors: no descriptor patterns.');
  const termHits = association(aggregates.terms);
  const descriptors = aggregates.terms.map((term, i) => ({
    term: term.term,
    share: rateOf(term.cases, n, termBaseline),
    hits: termHits.associations[i] ?? null,
  }));

  // Places.
  if (n > 0 && totals.located === 0) warnings.push('No case has a location: no place patterns.');
  const cellHits = association(aggregates.cells);
  const cellBaseline = aggregates.cells_occupied === 0 ? 0 : 1 / aggregates.cells_occupied;
  const g = settings.gridDegrees;
  const places = aggregates.cells.map((cell, i) => ({
    cell: {
      south: round(cell.cell_row * g),
      west: round(cell.cell_col * g),
      north: round(Math.min(90, (cell.cell_row + 1) * g)),
      east: round(Math.min(180, (cell.cell_col + 1) * g)),
    },
    centroid: { latitude: round(cell.latitude), longitude: round(cell.longitude) },
    share: rateOf(cell.cases, totals.located, cellBaseline),
    hits: cellHits.associations[i] ?? null,
  }));

  // Times: one family of 7 + 24 + 12 buckets.
  if (n > 0 && n < FEW_FOR_HOURS) {
    warnings.push(
      `Only ${n} cases: fewer than 5 are expected in each hour, so time shares say little.`,
    );
  }
  const times = timeBuckets(aggregates.times, n);

  return {
    window: {
      limit: settings.window,
      bounded,
      firstDate: totals.first === null ? null : new Date(totals.first),
      lastDate: totals.last === null ? null : new Date(totals.last),
    },
    correction: PATTERN_CORRECTION,
    significanceLevel: PATTERN_SIGNIFICANCE_LEVEL,
    minSupport: settings.minSupport,
    cases: n,
    verified: totals.verified,
    hitRate:
      totals.verified === 0 || totals.chance === null
        ? null
        : rateOf(totals.hits, totals.verified, round(totals.chance)),
    descriptors: {
      distinctTerms: distinct,
      familySize: termHits.familySize,
      patterns: ranked(descriptors),
    },
    places: {
      gridDegrees: g,
      located: totals.located,
      cellsOccupied: aggregates.cells_occupied,
      familySize: cellHits.familySize,
      patterns: ranked(places),
    },
    times,
    warnings,
  };
}

/**
 * Hit rates of the candidates with at least minSupport verified cases — the
 * family — each against the organisation's, BH-adjusted together. Choosing
 * the family by verified count looks only at how often a candidate was
 * verified, never at its hits, so it cannot pick the lucky ones.
 */
function hitAssociations(totals: PatternCounts, orgHitRate: number | null, minSupport: number) {
  return (candidates: readonly PatternCounts[]) => {
    const tested = candidates
      .map((candidate, index) => ({ candidate, index }))
      .filter(({ candidate }) => orgHitRate !== null && candidate.verified >= minSupport);
    const rates = tested.map(({ candidate }) =>
      rateOf(candidate.hits, candidate.verified, orgHitRate!),
    );
    const adjusted = adjustPValues(
      rates.map((rate) => rate.pValue),
      PATTERN_CORRECTION,
    );
    const associations: (HitAssociation | undefined)[] = new Array(candidates.length);
    tested.forEach(({ candidate, index }, i) => {
      associations[index] = {
        hitRate: rates[i]!,
        lift: round(candidate.hits / candidate.verified / orgHitRate!),
        shareOfHits: round(candidate.hits / totals.hits),
        shareOfVerified: round(candidate.verified / totals.verified),
        pAdjusted: adjusted[i]!,
        significant: adjusted[i]! < PATTERN_SIGNIFICANCE_LEVEL,
      };
    });
    return { familySize: tested.length, associations };
  };
}

/** The most significant first (untested last), then the most cases; at most PATTERNS_LISTED. */
function ranked<T extends { share: Rate; hits: HitAssociation | null }>(patterns: T[]): T[] {
  return patterns
    .sort(
      (a, b) =>
        (a.hits?.pAdjusted ?? 2) - (b.hits?.pAdjusted ?? 2) ||
        (b.hits?.lift ?? 0) - (a.hits?.lift ?? 0) ||
        b.share.successes - a.share.successes,
    )
    .slice(0, PATTERNS_LISTED);
}

function timeBuckets(rows: PatternAggregates['times'], n: number): HistoryPatterns['times'] {
  const weekday = new Array<number>(7).fill(0);
  const hour = new Array<number>(24).fill(0);
  const month = new Array<number>(12).fill(0);
  for (const row of rows) {
    if (row.weekday !== null) weekday[row.weekday - 1] = row.cases;
    else if (row.hour !== null) hour[row.hour] = row.cases;
    else if (row.month !== null) month[row.month - 1] = row.cases;
  }
  const shares = [
    ...weekday.map((cases, i) => ({ bucket: WEEKDAYS[i]!, cases, baseline: 1 / 7 })),
    ...hour.map((cases, i) => ({ bucket: String(i).padStart(2, '0'), cases, baseline: 1 / 24 })),
    ...month.map((cases, i) => ({
      bucket: MONTHS[i]!,
      cases,
      baseline: MONTH_DAYS[i]! / YEAR_DAYS,
    })),
  ];
  if (n === 0) return { familySize: 0, weekday: [], hour: [], month: [] };
  const rates = shares.map((s) => rateOf(s.cases, n, round(s.baseline)));
  const adjusted = adjustPValues(
    rates.map((rate) => rate.pValue),
    PATTERN_CORRECTION,
  );
  const buckets = shares.map((s, i): TimeBucket => ({
    bucket: s.bucket,
    share: rates[i]!,
    lift: round(s.cases / n / rates[i]!.baseline),
    pAdjusted: adjusted[i]!,
    significant: adjusted[i]! < PATTERN_SIGNIFICANCE_LEVEL,
  }));
  return {
    familySize: buckets.length,
    weekday: buckets.slice(0, 7),
    hour: buckets.slice(7, 31),
    month: buckets.slice(31),
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
