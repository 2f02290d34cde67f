import { calibratedTrackRecord } from '#statistics';
import type {
  ChartAnalysisResult,
  DepthAnalysisResult,
  EnergyDetectionResult,
  EnergyMapResult,
  LocationFindingResult,
  MaterialIdentificationResult,
  MultiPointResult,
} from './dowsing-variant-results.js';
import type {
  DowsingReading,
  DowsingRequest,
  DowsingResultData,
  DowsingVariantInput,
  GeoPointInput,
} from './dowsing-engine.js';
import {
  DEPTH_TOLERANCE_SHARE,
  informationOptions,
  LOCATION_ACCURACY_SHARE,
  READINGS_PER_PRECISION,
} from './dowsing-protocol.js';
import { type DowsingScore, scoreJudged, supportShare } from './dowsing-score.js';
import {
  COMPASS_SECTORS,
  ENERGY_SIGNATURES,
  MATERIALS,
  UNMEASURED_SIGNATURE,
  YES_NO_ANSWERS,
} from './dowsing-vocabulary.js';
import { gridGeometry, placeInCircle, radialShare } from './dowsing-variant-geometry.js';
import { roundSignificant, roundTo, roundToUnitSum } from './rounding.js';
import {
  type CategoricalReadings,
  densestReadings,
  distance,
  type Judged,
  readCategorical,
  readDepths,
  readDisc,
} from './simulated-dowser.js';

type DowsingLocation = DowsingResultData['locations'][number];
type Input<V extends DowsingVariantInput['variant']> = Extract<DowsingVariantInput, { variant: V }>;

/**
 * What one variant's readings came to. The engine adds what every variant
 * shares: the statistics of `judged`, the chart and the sentences about
 * chance (simulated-dowsing-engine.ts).
 */
export interface VariantAnswer {
  answer: string;
  judged: Judged;
  /** The baseline in words: "1 in 3 per reading", "6.25 % per reading (…)". */
  baselineText: string;
  /** What one trial is: a reading, or (location_finding) a pass of several marks. */
  trialNoun: 'reading' | 'pass';
  /** The chart's readings, each in [0, 1] (docs/statistics.md, "Dowsing", "What is shown"). */
  chartReadings: number[];
  /** What the readings pointed at, for the chart's interpretation. */
  pointedAt: string;
  coordinates?: DowsingResultData['coordinates'];
  insights: string[];
  locations: DowsingLocation[];
  readings: DowsingReading[];
  variantResult: Record<string, unknown> | null;
}

/** Each variant's answer, from the query's seed. */
export function answerVariant(request: DowsingRequest, seed: string): VariantAnswer {
  const n = READINGS_PER_PRECISION[request.precisionLevel];
  const { input } = request;
  switch (input.variant) {
    case 'query':
      if (request.queryType === 'yes_no') return yesNo(seed, n);
      if (request.queryType === 'information') return information(request, seed, n);
      return location(request, seed, n);
    case 'multi_point':
      return multiPoint(input, seed, n);
    case 'energy_map':
      return energyMap(input, seed, n);
    case 'depth_analysis':
      return depthAnalysis(input, request, seed, n);
    case 'material_identification':
      return materialIdentification(input, seed, n);
    case 'chart_analysis':
      return chartAnalysis(input, seed, n);
    case 'location_finding':
      return locationFinding(input, request, seed, n);
    case 'energy_detection':
      return energyDetection(input, seed, n);
  }
}

/** yes_no: each reading says positive, negative or neutral; the answer is the one read most. */
function yesNo(seed: string, n: number): VariantAnswer {
  const chosen = chooseAmong(seed, YES_NO_ANSWERS, n);
  const count = (answer: (typeof YES_NO_ANSWERS)[number]) =>
    chosen.read.counts[YES_NO_ANSWERS.indexOf(answer)]!;
  return {
    ...categoricalCommon(chosen),
    insights: [
      `The readings said positive ${count('positive')}, negative ${count('negative')} and neutral ${count('neutral')} times; the answer is the one read most${chosen.tieNote}.`,
    ],
    locations: [],
    readings: [],
    variantResult: null,
  };
}

/** information: one of the request's options (context.parameters.options) or of the compass sectors. */
function information(request: DowsingRequest, seed: string, n: number): VariantAnswer {
  const options = informationOptions(request);
  const labels = options ?? COMPASS_SECTORS;
  const chosen = chooseAmong(seed, labels, n);
  return {
    ...categoricalCommon(chosen),
    insights: [
      options
        ? `Answered from the ${labels.length} options in context.parameters.options.`
        : `Answered from the ${labels.length} compass sectors of the radar (no context.parameters.options given).`,
      `${chosen.label} was read ${chosen.read.counts[chosen.top]} times of ${n}${chosen.tieNote}.`,
    ],
    locations: [],
    readings: [],
    variantResult: null,
  };
}

/** location: a point inside context.location, the reading the others gather round. */
function location(request: DowsingRequest, seed: string, n: number): VariantAnswer {
  const circle = request.context.location!;
  const share = LOCATION_ACCURACY_SHARE[request.precisionLevel];
  const accuracy = circle.radius_meters * share;
  const read = readDisc(seed, circle.radius_meters, accuracy, n, 1);
  const [best] = densestReadings(
    read.marks,
    (a, b) => distance(a, b) <= accuracy,
    () => true,
    1,
  );
  const point = placeInCircle(circle, read.marks[best!.index]!);
  const score = scoreJudged(read);
  return {
    answer: `${point.latitude}, ${point.longitude}`,
    judged: read,
    baselineText: `${percent(share ** 2)} per reading (the share of the search circle within accuracy of the truth)`,
    trialNoun: 'reading',
    chartReadings: read.marks.map((mark) => radialShare(mark, circle)),
    pointedAt: `${best!.support} of ${n} readings fell within ${meters(accuracy)} of the answer`,
    coordinates: { ...point, accuracy_meters: roundTo(accuracy, 3) },
    insights: [
      `The answer is the reading with the most others within ${meters(accuracy)} of it (${best!.support} of ${n}); ` +
        `accuracy is ${percent(share)} of the ${meters(circle.radius_meters)} radius at ${request.precisionLevel} precision.`,
    ],
    locations: [place(point, score)],
    readings: [reading(point, score.confidence)],
    variantResult: null,
  };
}

/**
 * multi_point → variant_result:
 * `{ points: [{ name, latitude, longitude, reading, confidence }], strongest }`,
 * points in the request's order; `reading` is the share of readings that
 * chose the point, `confidence` its calibrated share (prior mean 1/k; the
 * points' confidences add up to 1); `strongest` is the name of the point
 * chosen most (ties by lot), also the answer.
 */
function multiPoint(input: Input<'multi_point'>, seed: string, n: number): VariantAnswer {
  const names = input.points.map((p) => p.name);
  const chosen = chooseAmong(seed, names, n);
  const k = names.length;
  const shares = roundToUnitSum(
    chosen.read.counts.map((count) => supportShare(count, n, 1 / k).share),
  );
  const points = input.points.map((p, i) => ({
    name: p.name,
    latitude: p.latitude,
    longitude: p.longitude,
    reading: roundTo(chosen.read.counts[i]! / n),
    confidence: shares[i]!,
  }));
  const strongest = input.points[chosen.top]!;
  return {
    ...categoricalCommon(chosen),
    coordinates: {
      latitude: strongest.latitude,
      longitude: strongest.longitude,
      accuracy_meters: 0,
    },
    insights: [
      `${strongest.name} was chosen by ${chosen.read.counts[chosen.top]} of ${n} readings among ${k} points${chosen.tieNote}.`,
    ],
    locations: input.points.map((p, i) =>
      place(p, {
        confidence: shares[i]!,
        confidence_interval: supportShare(chosen.read.counts[i]!, n, 1 / k).confidence_interval,
      }),
    ),
    readings: input.points.map((p, i) => reading(p, shares[i]!)),
    variantResult: { points, strongest: strongest.name } satisfies MultiPointResult,
  };
}

/**
 * energy_map → variant_result:
 * `{ grid: { rows, columns, cells, cell_size_meters: { north_south, east_west } },
 *    strongest_cell: { row, column, latitude, longitude } }`.
 * `cells[row][column]` is the share of readings that chose the cell; row 0
 * is the northernmost, column 0 the westernmost (east < west crosses the
 * antimeridian). Cell sizes are along a meridian and along the box's
 * middle parallel. The strongest cell is the one chosen most (ties by lot);
 * its centre is the answer's coordinates, accurate to its farthest corner.
 */
function energyMap(input: Input<'energy_map'>, seed: string, n: number): VariantAnswer {
  const { rows, columns } = input.grid;
  const k = rows * columns;
  const labels = Array.from(
    { length: k },
    (_, i) => `row ${Math.floor(i / columns)}, column ${i % columns}`,
  );
  const chosen = chooseAmong(seed, labels, n);
  const geometry = gridGeometry(input.bounds, rows, columns);
  const row = Math.floor(chosen.top / columns);
  const column = chosen.top % columns;
  const centre = geometry.centre(row, column);
  const cells = Array.from({ length: rows }, (_, r) =>
    Array.from({ length: columns }, (_, c) => roundTo(chosen.read.counts[r * columns + c]! / n)),
  );
  const score = scoreJudged(chosen.read);
  return {
    ...categoricalCommon(chosen),
    coordinates: { ...centre, accuracy_meters: roundTo(geometry.halfDiagonal(row, column), 3) },
    insights: [
      `The cell at ${chosen.label} was chosen by ${chosen.read.counts[chosen.top]} of ${n} readings; ` +
        `over ${k} cells chance gives each cell ${roundSignificant(n / k, 3)}${chosen.tieNote}.`,
    ],
    locations: [place(centre, score)],
    readings: chosen.read.counts.map((count, i) =>
      reading(
        geometry.centre(Math.floor(i / columns), i % columns),
        roundTo(calibratedTrackRecord(count, n, 1 / k)),
      ),
    ),
    variantResult: {
      grid: { rows, columns, cells, cell_size_meters: geometry.cellSize },
      strongest_cell: { row, column, latitude: centre.latitude, longitude: centre.longitude },
    } satisfies EnergyMapResult,
  };
}

/**
 * depth_analysis → variant_result: `{ depth_meters, depth_interval_meters: [low, high] }`.
 * The depth is the reading with the most others within ± tolerance
 * (max_depth × 10 %, 5 %, 2.5 % by precision); the interval is 2 × tolerance
 * wide, centred on it and moved inside 0..max_depth where it would stick
 * out, so its share of 0..max_depth is the baseline.
 */
function depthAnalysis(
  input: Input<'depth_analysis'>,
  request: DowsingRequest,
  seed: string,
  n: number,
): VariantAnswer {
  const maxDepth = input.max_depth_meters;
  const tolerance = maxDepth * DEPTH_TOLERANCE_SHARE[request.precisionLevel];
  const read = readDepths(seed, maxDepth, tolerance, n);
  const [best] = densestReadings(
    read.depths,
    (a, b) => Math.abs(a - b) <= tolerance,
    () => true,
    1,
  );
  const depth = read.depths[best!.index]!;
  const low = Math.max(0, Math.min(depth - tolerance, maxDepth - 2 * tolerance));
  const interval: [number, number] = [
    Math.max(0, roundTo(low, 2)),
    Math.min(maxDepth, roundTo(low + 2 * tolerance, 2)),
  ];
  const depthMeters = roundTo(depth, 2);
  const score = scoreJudged(read);
  return {
    answer: `${depthMeters} m`,
    judged: read,
    baselineText: `${percent(read.p0)} per reading (the share of 0–${meters(maxDepth)} within ±${meters(tolerance)} of the truth)`,
    trialNoun: 'reading',
    chartReadings: read.depths.map((d) => roundTo(d / maxDepth)),
    pointedAt: `${best!.support} of ${n} readings lay within ±${meters(tolerance)} of ${depthMeters} m`,
    insights: [
      `The depth is the reading with the most others within ±${meters(tolerance)} (${best!.support} of ${n}); ` +
        `the interval ${interval[0]}–${interval[1]} m covers ${percent(read.p0)} of 0–${meters(maxDepth)}.`,
    ],
    locations: [{ ...place(input.point, score), depth_meters: depthMeters }],
    readings: [reading(input.point, score.confidence)],
    variantResult: {
      depth_meters: depthMeters,
      depth_interval_meters: interval,
    } satisfies DepthAnalysisResult,
  };
}

/**
 * material_identification → variant_result: `{ candidates: [{ material, probability }] }`,
 * most probable first. The candidates are the request's (vocabulary terms)
 * or all of MATERIALS; a probability is the candidate's calibrated share of
 * the readings (prior mean 1/k), rounded so that they add up to exactly 1.
 * The answer is the top material; a location (when a point is given) lists
 * in material_composition the materials above chance (1/k), at least the top.
 */
function materialIdentification(
  input: Input<'material_identification'>,
  seed: string,
  n: number,
): VariantAnswer {
  const labels = input.candidates ?? MATERIALS;
  const k = labels.length;
  const chosen = chooseAmong(seed, labels, n);
  const ranked = chosen.read.ranking;
  const probabilities = roundToUnitSum(
    ranked.map((i) => supportShare(chosen.read.counts[i]!, n, 1 / k).share),
  );
  const candidates = ranked.map((i, rank) => ({
    material: labels[i]!,
    probability: probabilities[rank]!,
  }));
  const composition = candidates
    .filter((c, rank) => rank === 0 || c.probability > 1 / k)
    .map((c) => c.material);
  const score = scoreJudged(chosen.read);
  return {
    ...categoricalCommon(chosen),
    insights: [
      `${chosen.label} was read ${chosen.read.counts[chosen.top]} times of ${n} among ${k} candidate materials${chosen.tieNote}.`,
      ...(input.sample_description
        ? ['The sample description was not analysed: the simulated readings do not use it.']
        : []),
    ],
    locations: input.point
      ? [{ ...place(input.point, score), material_composition: composition }]
      : [],
    readings: input.point ? [reading(input.point, score.confidence)] : [],
    variantResult: { candidates } satisfies MaterialIdentificationResult,
  };
}

/**
 * chart_analysis → variant_result: `{ chosen_option, option_strengths: [{ option, strength }] }`,
 * strengths in the request's order: each option's calibrated share of the
 * readings (prior mean 1/k), adding up to exactly 1. The chosen option is
 * the one read most (ties by lot), also the answer; the chart is the
 * request's chart_type.
 */
function chartAnalysis(input: Input<'chart_analysis'>, seed: string, n: number): VariantAnswer {
  const k = input.options.length;
  const chosen = chooseAmong(seed, input.options, n);
  const strengths = roundToUnitSum(
    chosen.read.counts.map((count) => supportShare(count, n, 1 / k).share),
  );
  return {
    ...categoricalCommon(chosen),
    insights: [
      `${chosen.label} was read ${chosen.read.counts[chosen.top]} times of ${n} among ${k} options${chosen.tieNote}.`,
    ],
    locations: [],
    readings: [],
    variantResult: {
      chosen_option: chosen.label,
      option_strengths: input.options.map((option, i) => ({ option, strength: strengths[i]! })),
    } satisfies ChartAnalysisResult,
  };
}

/**
 * location_finding → variant_result:
 * `{ candidates: [{ latitude, longitude, accuracy_meters, confidence }] }`,
 * best first, at most max_candidates, all inside `area`. In each of the n
 * passes the dowser marks max_candidates places; a pass hits when any mark
 * lies within accuracy (radius × 25 %, 10 %, 5 %) of the truth, so the
 * baseline is 1 − (1 − q)^m with q = (accuracy / radius)² — the chance that
 * m random places cover the truth, never above the union bound m·q.
 * Candidates are the marks with the most marks within accuracy, each more
 * than twice the accuracy from those before it; `confidence` is the
 * candidate's calibrated share of the marks (prior mean q).
 */
function locationFinding(
  input: Input<'location_finding'>,
  request: DowsingRequest,
  seed: string,
  n: number,
): VariantAnswer {
  const { area, max_candidates: m } = input;
  const share = LOCATION_ACCURACY_SHARE[request.precisionLevel];
  const accuracy = area.radius_meters * share;
  const q = share ** 2;
  const read = readDisc(seed, area.radius_meters, accuracy, n, m);
  const marks = read.marks.length;
  const dense = densestReadings(
    read.marks,
    (a, b) => distance(a, b) <= accuracy,
    (a, b) => distance(a, b) > 2 * accuracy,
    m,
  );
  const candidates = dense.map(({ index, support }) => {
    const point = placeInCircle(area, read.marks[index]!);
    const backing = supportShare(support, marks, q);
    return { point, support, confidence: roundTo(backing.share), backing };
  });
  const [first] = candidates;
  return {
    answer: `${first!.point.latitude}, ${first!.point.longitude}`,
    judged: read,
    baselineText: `${percent(read.p0)} per pass (${m} mark${m === 1 ? '' : 's'} a pass, each covering ${percent(q)} of the area)`,
    trialNoun: 'pass',
    chartReadings: read.marks.map((mark) => radialShare(mark, area)),
    pointedAt: `${first!.support} of ${marks} marks fell within ${meters(accuracy)} of the best candidate`,
    coordinates: { ...first!.point, accuracy_meters: roundTo(accuracy, 3) },
    insights: [
      `${n} passes marked ${m} place${m === 1 ? '' : 's'} each for “${input.sought}” (${marks} marks); ` +
        `${candidates.length} candidate${candidates.length === 1 ? '' : 's'} gathered the most marks within ${meters(accuracy)}, the best ${first!.support}.`,
    ],
    locations: candidates.map((c) =>
      place(c.point, {
        confidence: c.confidence,
        confidence_interval: c.backing.confidence_interval,
      }),
    ),
    readings: candidates.map((c) => reading(c.point, c.confidence)),
    variantResult: {
      candidates: candidates.map((c) => ({
        latitude: c.point.latitude,
        longitude: c.point.longitude,
        accuracy_meters: roundTo(accuracy, 3),
        confidence: c.confidence,
      })),
    } satisfies LocationFindingResult,
  };
}

/**
 * energy_detection → variant_result: `{ signal_strength, energy_signature, window }`:
 * the signature read most (ties by lot) out of ENERGY_SIGNATURES, the share
 * of readings that named it (0..1), and the request's window, echoed.
 */
function energyDetection(input: Input<'energy_detection'>, seed: string, n: number): VariantAnswer {
  const chosen = chooseAmong(seed, ENERGY_SIGNATURES, n);
  const score = scoreJudged(chosen.read);
  return {
    ...categoricalCommon(chosen),
    insights: [
      `${chosen.label} was named by ${chosen.read.counts[chosen.top]} of ${n} readings among ${ENERGY_SIGNATURES.length} signatures${chosen.tieNote}.`,
    ],
    locations: [{ ...place(input.point, score), energy_signature: chosen.label }],
    readings: [reading(input.point, score.confidence)],
    variantResult: {
      signal_strength: roundTo(chosen.read.counts[chosen.top]! / n),
      energy_signature: chosen.label,
      window: { from: input.window.from, to: input.window.to },
    } satisfies EnergyDetectionResult,
  };
}

interface Chosen {
  read: CategoricalReadings;
  labels: readonly string[];
  /** Index of the option read most (ties by lot). */
  top: number;
  label: string;
  /** " (tied with …, the tie broken by lot)" or "". */
  tieNote: string;
}

function chooseAmong(seed: string, labels: readonly string[], n: number): Chosen {
  const read = readCategorical(seed, labels.length, n);
  const top = read.ranking[0]!;
  const tied = read.ranking.slice(1).filter((i) => read.counts[i] === read.counts[top]);
  const others = tied.length === 1 ? '' : ` and ${tied.length - 1} more`;
  return {
    read,
    labels,
    top,
    label: labels[top]!,
    tieNote:
      tied.length === 0 ? '' : ` (tied with ${labels[tied[0]!]}${others}, the tie broken by lot)`,
  };
}

/**
 * The fields every choice among k options shares: the answer is the option
 * read most; a reading's number on the chart is its option's index / (k − 1).
 */
function categoricalCommon(
  chosen: Chosen,
): Pick<
  VariantAnswer,
  'answer' | 'judged' | 'baselineText' | 'trialNoun' | 'chartReadings' | 'pointedAt'
> {
  const k = chosen.labels.length;
  const n = chosen.read.trials;
  return {
    answer: chosen.label,
    judged: chosen.read,
    baselineText: `1 in ${k} per reading`,
    trialNoun: 'reading',
    chartReadings: chosen.read.picks.map((pick) => roundTo(k === 1 ? 0 : pick / (k - 1))),
    pointedAt: `${chosen.read.counts[chosen.top]} of ${n} readings chose ${chosen.label}`,
  };
}

/** A location the answer names, with what backs it; energy, depth and materials unmeasured. */
function place(
  point: GeoPointInput,
  backing: Pick<DowsingScore, 'confidence' | 'confidence_interval'>,
): DowsingLocation {
  return {
    coordinates: { lat: point.latitude, lng: point.longitude },
    confidence: backing.confidence,
    confidence_interval: backing.confidence_interval,
    energy_signature: UNMEASURED_SIGNATURE,
    depth_meters: null,
    material_composition: [],
  };
}

function reading(point: GeoPointInput, confidence: number): DowsingReading {
  return { latitude: point.latitude, longitude: point.longitude, confidence };
}

function percent(share: number): string {
  return `${roundSignificant(share * 100, 3)} %`;
}

function meters(value: number): string {
  return value < 1_000
    ? `${roundSignificant(value, 3)} m`
    : `${roundSignificant(value / 1_000, 3)} km`;
}
