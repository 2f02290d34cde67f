import { Injectable } from '@nestjs/common';
import type { VerifiedOutcomeStatistics, VerifiedRecord } from '#statistics';
import { SIMULATED_ENGINE_VERSION } from './engine-version.js';
import { magicEffects } from './magic-inputs.js';
import { roundSignificant, roundTo } from './rounding.js';
import { type SessionScores, scoreSession } from './score-session.js';
import type {
  CompletedOutcome,
  FailedOutcome,
  FailureReason,
  SessionEngine,
  SessionEngineOutcome,
  SessionWorkInput,
} from './session-engine.js';
import { mergedSeed, normalizeInput, sessionSeed, truthSeed } from './session-seed.js';
import { SeededRandom } from './seeded-random.js';
import {
  type AnalystContribution,
  CHANCE_HIT_RATE,
  JUDGING_SET_SIZE,
  type SessionGroundTruth,
} from './session-protocol.js';
import { describeSketches } from './sketch-descriptions.js';
import { drawContributions } from './simulated-analysts.js';
import { drawGroundTruth } from './simulated-ground-truth.js';
import { verifiedStatistics } from './verified-evidence.js';

/** A majority (or more) of analysts must report a descriptor for it to be listed. */
const DESCRIPTOR_MAJORITY = 0.5;
/** If no descriptor reaches a majority, list this many of the best supported. */
const FALLBACK_DESCRIPTORS = 3;

/**
 * The sandbox engine (docs/architecture.md, "Engines"; docs/statistics.md): output is a pure function of
 * (input, orgSeed, engine version). It draws a synthetic ground truth, then
 * analysts' work that ignores it, and scores that work with the same
 * statistics as real work — so its numbers sit at chance, honestly.
 * Evidence is 'prior', unless the organisation has verified outcomes of
 * sessions of the type (`verified`): then `confidence_score` is their
 * calibrated hit rate, `statistical_validation` their test against chance,
 * and the evidence 'verified'. The record is no part of the seed: the
 * analysts' work, the sketches and the location stay what they are.
 */
@Injectable()
export class SimulatedSessionEngine implements SessionEngine {
  readonly name = 'simulated' as const;
  readonly kind = 'session' as const;
  readonly version = SIMULATED_ENGINE_VERSION;

  run(
    input: SessionWorkInput,
    orgSeed: string,
    verified?: VerifiedRecord | null,
  ): Promise<SessionEngineOutcome> {
    return Promise.resolve(this.outcome(input, orgSeed, verified));
  }

  merge(
    sources: readonly SessionWorkInput[],
    orgSeed: string,
    verified?: VerifiedRecord | null,
  ): Promise<CompletedOutcome> {
    return Promise.resolve(this.mergedOutcome(sources, orgSeed, verified));
  }

  /**
   * The outcome, synchronously: a pure function of the input, the
   * organisation's seed, the version and the verified record.
   */
  outcome(
    input: SessionWorkInput,
    orgSeed: string,
    verified?: VerifiedRecord | null,
  ): SessionEngineOutcome {
    const normalized = normalizeInput(input);
    const seed = sessionSeed(normalized, orgSeed);
    const magic = magicEffects(normalized.target);
    const common = {
      engine: 'simulated' as const,
      engineVersion: SIMULATED_ENGINE_VERSION,
      seed,
      stepMultiplier: magic.stepMultiplier,
    };
    if (magic.failure) return failure(magic.failure, seed, common);

    const truth = drawGroundTruth(truthSeed(normalized, orgSeed));
    return completed(
      scoreSession(truth, contributionsOf(normalized, seed, truth)),
      verifiedStatistics(verified),
      seed,
      common,
    );
  }

  /**
   * Combines the work of completed sessions on one target into one outcome:
   * every source's analysts' contributions, re-drawn from its seed, scored
   * together against the target's (shared) truth. An analyst who worked on
   * several sources counts once, over all their trials.
   */
  mergedOutcome(
    sources: readonly SessionWorkInput[],
    orgSeed: string,
    verified?: VerifiedRecord | null,
  ): CompletedOutcome {
    const [first] = sources;
    if (!first || sources.length < 2) throw new RangeError('merge needs at least two sources');
    if (sources.some((s) => s.type !== first.type || s.target !== first.target)) {
      throw new RangeError('merged sources must share their type and target');
    }
    const truth = drawGroundTruth(truthSeed(first, orgSeed));
    const seeds = sources.map((source) => sessionSeed(source, orgSeed));
    const contributions = sources.flatMap((source, i) =>
      contributionsOf(normalizeInput(source), seeds[i]!, truth),
    );
    const seed = mergedSeed(seeds);
    return completed(scoreSession(truth, contributions), verifiedStatistics(verified), seed, {
      engine: 'simulated',
      engineVersion: SIMULATED_ENGINE_VERSION,
      seed,
      stepMultiplier: 1,
    });
  }
}

function contributionsOf(
  input: Required<SessionWorkInput>,
  seed: string,
  truth: SessionGroundTruth,
): AnalystContribution[] {
  return drawContributions(seed, truth.searchArea, input.analystCount, input.modality);
}

type Common = Pick<FailedOutcome, 'engine' | 'engineVersion' | 'seed' | 'stepMultiplier'>;

function failure(reason: FailureReason, seed: string, common: Common): FailedOutcome {
  if (reason === 'deadline_exceeded') {
    return {
      status: 'failed',
      reason,
      message: 'Simulated deadline exceeded ([timeout] in target).',
      failAtProgress: 90,
      ...common,
    };
  }
  // A step strictly between start and the last step, so progress is seen before the failure.
  const failAtProgress = 10 * new SeededRandom(seed, 'failure').int(1, 8);
  return {
    status: 'failed',
    reason,
    message: 'Simulated engine failure ([fail] in target).',
    failAtProgress,
    ...common,
  };
}

function completed(
  scores: SessionScores,
  verified: VerifiedOutcomeStatistics | null,
  seed: string,
  common: Common,
): CompletedOutcome {
  const descriptors = listedDescriptors(scores.descriptorSupport);
  // With verified outcomes, the confidence and the test against chance are theirs.
  const validation = verified
    ? {
        pValue: verified.pValue,
        confidenceInterval: verified.confidenceInterval,
        sampleSize: verified.n,
        confidence: verified.calibratedRate,
      }
    : {
        pValue: scores.pValue,
        confidenceInterval: scores.confidenceInterval,
        sampleSize: scores.trials,
        confidence: scores.confidenceScore,
      };
  return {
    status: 'completed',
    evidence: verified ? 'verified' : 'prior',
    analystId: scores.analysts[0]!.analystId,
    descriptorSupport: Object.fromEntries(
      Object.entries(scores.descriptorSupport).map(([d, s]) => [d, roundTo(s)]),
    ),
    equalWeightsFallback: scores.equalWeightsFallback,
    judging: { hits: scores.hits, trials: scores.trials, k: JUDGING_SET_SIZE, p0: CHANCE_HIT_RATE },
    results: {
      coordinates: {
        latitude: roundTo(scores.location.latitude),
        longitude: roundTo(scores.location.longitude),
        confidence: roundTo(scores.location.confidence),
      },
      descriptors,
      sketches: describeSketches(seed, descriptors),
      confidence_score: roundTo(validation.confidence),
      validation_metrics: {
        accuracy: roundTo(scores.accuracy),
        reliability: roundTo(scores.reliability),
      },
      statistical_validation: {
        p_value: roundSignificant(validation.pValue),
        confidence_interval: [
          roundTo(validation.confidenceInterval[0]),
          roundTo(validation.confidenceInterval[1]),
        ],
        sample_size: validation.sampleSize,
      },
      collaborative_insights: scores.analysts.map((a) => ({
        analyst_id: a.analystId,
        contribution_weight: roundTo(a.contributionWeight),
        key_insights: a.descriptors.slice(0, 3),
      })),
    },
    ...common,
  };
}

/** Descriptors reported by a majority, best supported first (support map is already ordered). */
function listedDescriptors(support: Record<string, number>): string[] {
  const ordered = Object.keys(support);
  const majority = ordered.filter((d) => support[d]! >= DESCRIPTOR_MAJORITY);
  return majority.length > 0 ? majority : ordered.slice(0, FALLBACK_DESCRIPTORS);
}
