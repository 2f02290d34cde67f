import type { CombinedResults, SubmissionForResults } from '#analysts';
import {
  DOWSING_DEFAULT_BASELINE,
  MATERIALS,
  type ChartType,
  type DowsingQueryType,
  type DowsingResultData,
  type DowsingVariantInput,
} from '#engines';
import { haversineMeters, normalizeDescriptor } from '#statistics';

/** One analyst's submission as a dowsing answer reads it. */
export interface DowsingSubmission {
  analystId: string;
  descriptors: readonly string[];
  point: { latitude: number; longitude: number } | null;
  notes: string | null;
}

/** Descriptors that answer a yes/no question, and the answer each gives. */
export const YES_NO_DESCRIPTORS: Readonly<Record<string, 'positive' | 'negative' | 'neutral'>> = {
  yes: 'positive',
  positive: 'positive',
  no: 'negative',
  negative: 'negative',
  neutral: 'neutral',
};

/** The answer when the analysts gave nothing that answers the question. */
export const UNDETERMINED = 'undetermined';

/**
 * The options a question offers the analysts' picks from: a chart's
 * `options`, a material identification's `candidates` (else the material
 * vocabulary); null for questions answered in free words or places.
 */
export function optionsOf(
  queryType: DowsingQueryType,
  input: DowsingVariantInput,
): string[] | null {
  if (queryType === 'yes_no') return ['positive', 'negative', 'neutral'];
  if (input.variant === 'chart_analysis') return input.options;
  if (input.variant === 'material_identification') return input.candidates ?? [...MATERIALS];
  return null;
}

/**
 * What one analyst's submission answers (docs/analysts.md, "Analyses and
 * dowsing by people"): for yes/no, the single answer among its descriptors
 * (`yes`/`positive`, `no`/`negative`, `neutral`; none, or two different
 * ones, is no answer); for a question with options, the first descriptor
 * that names one of them (compared trimmed and lower-cased); null when it
 * answers nothing.
 */
export function pickOf(
  submission: DowsingSubmission,
  options: readonly string[] | null,
  yesNo: boolean,
): string | null {
  if (options === null) return null;
  if (yesNo) {
    const answers = new Set(
      submission.descriptors.map((d) => YES_NO_DESCRIPTORS[normalizeDescriptor(d)]).filter(Boolean),
    );
    return answers.size === 1 ? [...answers][0]! : null;
  }
  const byKey = new Map(options.map((option) => [normalizeDescriptor(option), option]));
  for (const descriptor of submission.descriptors) {
    const option = byKey.get(normalizeDescriptor(descriptor));
    if (option !== undefined) return option;
  }
  return null;
}

/**
 * The submissions as combineSubmissions weighs them for this question: a
 * pick question counts each analyst's pick only (so agreement is agreement
 * of picks), a location question each analyst's point, an open question
 * every descriptor.
 */
export function forCombining(
  queryType: DowsingQueryType,
  input: DowsingVariantInput,
  submissions: readonly DowsingSubmission[],
): SubmissionForResults[] {
  const options = optionsOf(queryType, input);
  return submissions.map((s) => {
    const pick = pickOf(s, options, queryType === 'yes_no');
    return {
      analystId: s.analystId,
      descriptors: options === null ? s.descriptors : pick === null ? [] : [pick],
      point: queryType === 'location' ? s.point : null,
      notes: s.notes,
    };
  });
}

/** Pooled judged trials of the analysts, for the effect size. */
export interface JudgedTrials {
  hits: number;
  trials: number;
  /** Mean chance baseline of the trials. */
  p0: number;
}

/**
 * The answer of a query done by people, from the combined submissions:
 * - yes/no: the weighted majority of the analysts' answers (weights from
 *   their track records, `collaborative_insights`), `neutral` on a tie or
 *   when nobody answered; `chart_data.readings` are the weighted shares of
 *   positive, negative, neutral;
 * - options (chart, material): the weighted plurality of the picks
 *   (ties: the most supported, then alphabetical), `undetermined` when
 *   nobody picked one; readings: each option's weighted share;
 * - location: the weighted geometric median of the points, `accuracy_meters`
 *   the weighted mean distance of the points from it (0 for one point);
 *   readings: each analyst's weight;
 * - open information questions: the most supported descriptor.
 * `confidence` is combineSubmissions' (verified outcomes, else agreement of
 * the picks or points, else the calibrated track record); significance is
 * of the analysts' judged trials (or the verified outcomes).
 */
export function dowsingAnswerFrom(
  query: { queryType: DowsingQueryType; input: DowsingVariantInput },
  combining: readonly SubmissionForResults[],
  combined: CombinedResults,
  judged: JudgedTrials,
): DowsingResultData {
  const { queryType, input } = query;
  const options = optionsOf(queryType, input);
  const weightOf = new Map(
    combined.collaborativeInsights.map((i) => [i.analyst_id, i.contribution_weight]),
  );
  const n = combining.length;
  const insights = [
    `Answered by ${n} analyst${n === 1 ? '' : 's'} working blind (evidence: ${combined.evidence})`,
    ...combined.collaborativeInsights.map(
      (i) =>
        `${i.analyst_id} (weight ${i.contribution_weight}): ${i.key_insights.join('; ') || 'no descriptors'}`,
    ),
  ];
  let answer = UNDETERMINED;
  let readings: number[];
  let interpretation: string;
  let coordinates: DowsingResultData['coordinates'];
  let baseline: number = DOWSING_DEFAULT_BASELINE[queryType];

  if (options !== null) {
    const votes = new Map(options.map((option) => [option, 0]));
    let total = 0;
    for (const s of combining) {
      const pick = s.descriptors[0];
      if (pick === undefined) continue;
      const weight = weightOf.get(s.analystId) ?? 0;
      votes.set(pick, (votes.get(pick) ?? 0) + weight);
      total += weight;
    }
    readings = options.map((option) => round(total > 0 ? votes.get(option)! / total : 0));
    const ranked = [...votes.entries()]
      .filter(([, weight]) => weight > 0)
      .sort(
        (a, b) =>
          b[1] - a[1] ||
          (combined.descriptorSupport[b[0]] ?? 0) - (combined.descriptorSupport[a[0]] ?? 0) ||
          (a[0] < b[0] ? -1 : 1),
      );
    const tie = ranked.length >= 2 && Math.abs(ranked[0]![1] - ranked[1]![1]) < 1e-9;
    if (queryType === 'yes_no') {
      answer = ranked.length === 0 || tie ? 'neutral' : ranked[0]![0];
      interpretation = `Weighted shares of the analysts' answers: positive ${readings[0]}, negative ${readings[1]}, neutral ${readings[2]}`;
    } else {
      answer = ranked[0]?.[0] ?? UNDETERMINED;
      baseline = 1 / options.length;
      interpretation = `Weighted shares of the analysts' picks among ${options.length} options (chance ${round(baseline)} each)`;
    }
  } else if (queryType === 'location') {
    const located = combining.filter((s) => s.point !== null);
    readings = located.map((s) => round(weightOf.get(s.analystId) ?? 0));
    if (combined.coordinates) {
      const center = combined.coordinates;
      const total = located.reduce((sum, s) => sum + (weightOf.get(s.analystId) ?? 0), 0);
      const spread =
        located.length < 2 || total === 0
          ? 0
          : located.reduce(
              (sum, s) =>
                sum + (weightOf.get(s.analystId) ?? 0) * haversineMeters(s.point!, center),
              0,
            ) / total;
      coordinates = {
        latitude: center.latitude,
        longitude: center.longitude,
        accuracy_meters: Math.round(spread),
      };
      answer = `${center.latitude}, ${center.longitude}`;
    }
    interpretation = `Weighted geometric median of ${located.length} analysts' points; readings are their weights`;
  } else {
    answer = combined.descriptors[0] ?? UNDETERMINED;
    readings = combined.descriptors.slice(0, 10).map((d) => combined.descriptorSupport[d] ?? 0);
    interpretation = 'Support of the most reported descriptors (share of analysts reporting each)';
  }

  const validation = combined.statisticalValidation;
  const effect =
    judged.trials > 0 && judged.p0 > 0 && judged.p0 < 1
      ? (judged.hits / judged.trials - judged.p0) / Math.sqrt(judged.p0 * (1 - judged.p0))
      : 0;
  return {
    answer,
    confidence: combined.confidenceScore,
    ...(coordinates && { coordinates }),
    additional_insights: insights,
    chart_data: {
      chart_type: (input.variant === 'chart_analysis' ? input.chart_type : 'pendulum') as ChartType,
      readings,
      interpretation,
    },
    baseline: round(baseline),
    confidence_interval: validation.confidence_interval,
    statistical_significance: {
      p_value: validation.p_value,
      effect_size: round(effect),
      sample_size: validation.sample_size,
    },
    locations: coordinates
      ? [
          {
            coordinates: { lat: coordinates.latitude, lng: coordinates.longitude },
            confidence: combined.coordinates!.confidence,
            confidence_interval: validation.confidence_interval,
            energy_signature: 'analyst_consensus',
            depth_meters: null,
            material_composition: [],
          },
        ]
      : [],
    variant_result: null,
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
