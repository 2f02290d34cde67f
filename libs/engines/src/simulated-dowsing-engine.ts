import { Injectable } from '@nestjs/common';
import type { Mode } from '#common';
import type { VerifiedOutcomeStatistics, VerifiedRecord } from '#statistics';
import type {
  ChartType,
  CompletedDowsingOutcome,
  DowsingEngine,
  DowsingEngineOutcome,
  DowsingQueryType,
  DowsingRequest,
  FailedDowsingOutcome,
} from './dowsing-engine.js';
import { dowsingRequestProblem, dowsingSeed } from './dowsing-protocol.js';
import { type DowsingScore, scoreJudged } from './dowsing-score.js';
import { SIMULATED_ENGINE_VERSION } from './engine-version.js';
import { magicEffects } from './magic-inputs.js';
import { roundSignificant, roundTo } from './rounding.js';
import { answerVariant, type VariantAnswer } from './simulated-dowsing-variants.js';
import { verifiedSentence, verifiedStatistics } from './verified-evidence.js';

/** The chart each query type is read on; chart_analysis names its own. */
export const CHART_FOR_QUERY_TYPE: Readonly<Record<DowsingQueryType, ChartType>> = {
  yes_no: 'pendulum',
  information: 'radar',
  location: 'divining_rod',
};

const CHART_NAMES: Readonly<Record<ChartType, string>> = {
  pendulum: 'Pendulum',
  radar: 'Radar chart',
  divining_rod: 'Divining rod',
};

/** Below this a p-value is called significant in the interpretation (and 1 chance run in 20 is). */
const SIGNIFICANCE_LEVEL = 0.05;

/**
 * The sandbox engine for dowsing queries (docs/statistics.md, "Dowsing"):
 * every variant of a query is answered within the request, as a pure
 * function of the request, the organisation's seed and the engine version.
 * It draws a synthetic ground truth and a simulated dowser's readings that
 * ignore it (simulated-dowser.ts), answers from the readings
 * (simulated-dowsing-variants.ts), and judges the readings against the
 * truth with the statistics module — so its results sit at chance, and say
 * so. Evidence is `prior`, unless the organisation has verified outcomes of
 * the query type (`verified`): then the confidence, its interval and the
 * statistical significance are those of the verified record, evidence
 * `verified`, and the readings and the answer are what they would be
 * without it (the record is no part of the seed). The mode changes only
 * the wording: the sandbox's answers say they are the sandbox's, live ones
 * that the organisation's live work ran on the simulated engine.
 *
 * Magic inputs in `question` (case-insensitive): `[fail]` → failed,
 * `engine_failure`; `[timeout]` → failed, `deadline_exceeded`. `[slow]`
 * stretches the progress steps of work done over time; an inline answer
 * has none, so it changes nothing here.
 */
@Injectable()
export class SimulatedDowsingEngine implements DowsingEngine {
  readonly name = 'simulated' as const;
  readonly kind = 'dowsing' as const;
  readonly answersInline = true;
  readonly version = SIMULATED_ENGINE_VERSION;

  async run(
    request: DowsingRequest,
    orgSeed: string,
    verified: VerifiedRecord | null | undefined,
    mode: Mode,
  ): Promise<DowsingEngineOutcome> {
    return this.outcome(request, orgSeed, verified, mode);
  }

  /**
   * The outcome, synchronously. Throws a RangeError naming the field when
   * the request is one the engine cannot answer (dowsingRequestProblem: the
   * HTTP layer rejects those first). `mode` defaults to the sandbox's, where
   * this engine does most of its work (and the unit tests ask it).
   */
  outcome(
    request: DowsingRequest,
    orgSeed: string,
    verified?: VerifiedRecord | null,
    mode: Mode = 'test',
  ): DowsingEngineOutcome {
    const problem = dowsingRequestProblem(request);
    if (problem !== null) throw new RangeError(problem);
    const seed = dowsingSeed(request, orgSeed);
    const common = { engine: this.name, engineVersion: this.version, seed };
    const magic = magicEffects(request.question);
    if (magic.failure) return failure(magic.failure, common);
    return completed(
      request,
      answerVariant(request, seed),
      verifiedStatistics(verified),
      mode,
      common,
    );
  }
}

type Common = Pick<CompletedDowsingOutcome, 'engine' | 'engineVersion' | 'seed'>;

function failure(reason: FailedDowsingOutcome['reason'], common: Common): FailedDowsingOutcome {
  return {
    status: 'failed',
    reason,
    message:
      reason === 'engine_failure'
        ? 'Simulated engine failure ([fail] in question).'
        : 'Simulated deadline exceeded ([timeout] in question).',
    ...common,
  };
}

function completed(
  request: DowsingRequest,
  variant: VariantAnswer,
  verified: VerifiedOutcomeStatistics | null,
  mode: Mode,
  common: Common,
): CompletedDowsingOutcome {
  const score = scoreJudged(variant.judged);
  const chartType =
    request.input.variant === 'chart_analysis'
      ? request.input.chart_type
      : CHART_FOR_QUERY_TYPE[request.queryType];
  const verifiedText = verified && verifiedSentence(verified, `${request.queryType} queries`);
  return {
    status: 'completed',
    evidence: verified ? 'verified' : 'prior',
    judging: { hits: variant.judged.hits, trials: variant.judged.trials, p0: variant.judged.p0 },
    readings: variant.readings,
    result: {
      answer: variant.answer,
      confidence: verified ? roundTo(verified.calibratedRate) : score.confidence,
      ...(variant.coordinates ? { coordinates: variant.coordinates } : {}),
      additional_insights: [
        summary(variant, score),
        ...(verifiedText
          ? [
              `${verifiedText} The confidence is their calibrated hit rate, (hits + 2·p0)/(n + 2) with p0 their mean chance baseline, ` +
                'and the interval and the p-value are theirs.',
            ]
          : []),
        ...variant.insights,
        simulationNote(mode, verified !== null),
      ],
      chart_data: {
        chart_type: chartType,
        readings: variant.chartReadings,
        interpretation:
          interpretation(chartType, variant, score) +
          (verified
            ? ` Verified record: ${verified.hits} of ${verified.n} hits where chance expects ` +
              `${roundSignificant(verified.expectedHits, 3)}, p = ${formatP(verified.pValue)}.`
            : ''),
      },
      baseline: score.baseline,
      confidence_interval: verified
        ? [roundTo(verified.confidenceInterval[0]), roundTo(verified.confidenceInterval[1])]
        : score.confidence_interval,
      statistical_significance: verified
        ? {
            p_value: roundSignificant(verified.pValue),
            effect_size: roundTo(verified.effectSize),
            sample_size: verified.n,
          }
        : {
            p_value: score.p_value,
            effect_size: score.effect_size,
            sample_size: score.sample_size,
          },
      locations: variant.locations,
      variant_result: variant.variantResult,
    },
    ...common,
  };
}

/**
 * What the answer rests on, in words that follow the mode: the sandbox's
 * answers are a simulation by design; live work ran on the simulated engine
 * because the organisation had no active analyst or asked for it.
 */
function simulationNote(mode: Mode, verified: boolean): string {
  const readings =
    'the readings were drawn without regard to the truth, so any agreement with it is chance';
  if (verified) {
    return (
      `${mode === 'test' ? 'Sandbox simulation' : 'Simulated engine'}: ${readings}; ` +
      "the confidence and the significance rest on your organisation's verified outcomes instead."
    );
  }
  if (mode === 'test') {
    return `Sandbox simulation: ${readings}; the evidence is the chance prior, and the result enters no track record.`;
  }
  return (
    `Simulated engine: this live query was answered by the simulated engine, not by analysts, so ${readings}; ` +
    "the evidence is the chance prior, and the result enters no analyst's track record " +
    '(ask for engine "analyst" to have your analysts answer).'
  );
}

/** "12 readings; 4 matched the synthetic truth, where chance expects 4 (p = 0.52)." */
function summary(variant: VariantAnswer, score: DowsingScore): string {
  const { hits, trials, p0 } = variant.judged;
  return (
    `${count(trials, variant.trialNoun)}; ${hits} matched the synthetic truth, ` +
    `where chance expects ${roundSignificant(trials * p0, 3)} (p = ${formatP(score.p_value)}).`
  );
}

function interpretation(chartType: ChartType, variant: VariantAnswer, score: DowsingScore): string {
  const { hits, trials, p0 } = variant.judged;
  const verdict =
    score.p_value < SIGNIFICANCE_LEVEL
      ? `more than chance usually gives — as about 1 run in 20 does when, as here, the readings ignore the truth`
      : 'nothing beyond chance';
  return (
    `${CHART_NAMES[chartType]}: ${variant.pointedAt}. ` +
    `Chance baseline ${variant.baselineText}; ` +
    `${hits} of ${trials} matched the synthetic truth where chance expects ${roundSignificant(trials * p0, 3)}, ` +
    `p = ${formatP(score.p_value)} (exact binomial, one-sided): ${verdict}.`
  );
}

function count(n: number, noun: 'reading' | 'pass'): string {
  return `${n} ${n === 1 ? noun : noun === 'pass' ? 'passes' : 'readings'}`;
}

function formatP(p: number): string {
  return String(roundSignificant(p, 2));
}
