import type {
  ChartAnalysisResult,
  DepthAnalysisResult,
  EnergyDetectionResult,
  MaterialIdentificationResult,
} from './dowsing-variant-results.js';
import type { DowsingRequest } from './dowsing-engine.js';
import {
  DEPTH_TOLERANCE_SHARE,
  informationOptions,
  READINGS_PER_PRECISION,
} from './dowsing-protocol.js';
import { scoreJudged, supportShare } from './dowsing-score.js';
import {
  COMPASS_SECTORS,
  ENERGY_SIGNATURES,
  MATERIALS,
  YES_NO_ANSWERS,
} from './dowsing-vocabulary.js';
import {
  type Input,
  type VariantAnswer,
  categoricalCommon,
  chooseAmong,
  meters,
  percent,
  place,
  reading,
} from './dowsing-variant-parts.js';
import { energyMap, location, locationFinding, multiPoint } from './simulated-dowsing-places.js';
import { roundTo, roundToUnitSum } from './rounding.js';
import { densestReadings, readDepths } from './simulated-dowser.js';

export type { VariantAnswer };

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
