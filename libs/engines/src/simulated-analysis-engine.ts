import { Injectable } from '@nestjs/common';
import { canonicalJson } from '#common';
import {
  binomialTailP,
  calibratedTrackRecord,
  haversineMeters,
  type VerifiedOutcomeStatistics,
} from '#statistics';
import type {
  AnalysisEngine,
  AnalysisEngineOutcome,
  AnalysisMaterialFacts,
  AnalysisPlan,
  AnalysisRequestInput,
  AnalysisScoreDetails,
  AnalysisStep,
  AnalysisType,
  AnalysisWorkInput,
  EarlierWork,
  RiskLevel,
} from './analysis-engine.js';
import { SIMULATED_ENGINE_VERSION } from './engine-version.js';
import { magicEffects } from './magic-inputs.js';
import { roundSignificant, roundTo } from './rounding.js';
import { scoreSession } from './score-session.js';
import { sha256Hex } from './seeded-random.js';
import { truthSeed } from './session-seed.js';
import { CHANCE_HIT_RATE } from './session-protocol.js';
import { drawContributions } from './simulated-analysts.js';
import { drawGroundTruth } from './simulated-ground-truth.js';
import { verifiedSentence, verifiedStatistics, verifiedSummary } from './verified-evidence.js';

/** What each kind of analysis does: `quick_scan` reads the material only; `deep_dive` adds analysts and looks further. */
const PLANS: Record<
  AnalysisType,
  { steps: AnalysisStep[]; analysts: number; crossReferenceMeters: number | null }
> = {
  quick_scan: {
    steps: ['fetching_material', 'reading_material', 'assessing'],
    analysts: 0,
    crossReferenceMeters: null,
  },
  comprehensive: {
    steps: [
      'fetching_material',
      'reading_material',
      'cross_referencing',
      'analyst_work',
      'assessing',
    ],
    analysts: 3,
    crossReferenceMeters: 1_000,
  },
  deep_dive: {
    steps: [
      'fetching_material',
      'reading_material',
      'cross_referencing',
      'analyst_work',
      'analyst_work',
      'analyst_work',
      'judging',
      'assessing',
    ],
    analysts: 7,
    crossReferenceMeters: 25_000,
  },
};

/** A photo taken farther than this from the given coordinates probably shows somewhere else. */
export const GPS_FAR_METERS = 10_000;
/** Analysts agreeing less than this (0 = none beyond chance, 1 = all alike) are a risk factor. */
export const LOW_AGREEMENT = 0.5;
const EXCERPT_IN_FINDING = 120;
/** A verified record whose p-value is at least this shows nothing beyond chance. */
const SIGNIFICANCE_LEVEL = 0.05;

/** Named risk factors and their weight; the level follows from the sum (see riskLevel). */
export const RISK_FACTORS = {
  missing_material: 1,
  unreadable_material: 1,
  all_material_unreadable: 2,
  gps_far_from_coordinates: 2,
  low_analyst_agreement: 1,
  prior_only_evidence: 1,
  verified_at_chance: 1,
} as const;
export type RiskFactor = keyof typeof RISK_FACTORS;

/**
 * The sandbox engine for target analyses (docs/statistics.md, "Target
 * analyses"): it states only what it measured — what the reference material
 * holds, which earlier work of the organisation bears on the target, and,
 * for `comprehensive` and `deep_dive`, the simulated analysts' blind work
 * (the session simulator's, so at chance). Output is a pure function of the
 * request, the material read, the earlier work, the organisation's seed and
 * the engine version. Evidence is `prior`, unless the organisation has
 * verified outcomes of the analysis type (`input.verified`): then the
 * confidence is their calibrated hit rate and the evidence `verified` (the
 * record is no part of the seed: the analysts' work stays the same).
 */
@Injectable()
export class SimulatedAnalysisEngine implements AnalysisEngine {
  readonly name = 'simulated' as const;
  readonly kind = 'analysis' as const;
  readonly version = SIMULATED_ENGINE_VERSION;

  plan(input: AnalysisRequestInput, orgSeed: string): AnalysisPlan {
    const plan = PLANS[input.analysisType];
    return {
      engine: this.name,
      engineVersion: this.version,
      requestSeed: requestSeed(input, orgSeed),
      steps: plan.steps,
      stepMultiplier: magicEffects(input.description ?? '').stepMultiplier,
      crossReference:
        plan.crossReferenceMeters === null ? null : { radiusMeters: plan.crossReferenceMeters },
      analystCount: plan.analysts,
    };
  }

  run(input: AnalysisWorkInput, orgSeed: string): Promise<AnalysisEngineOutcome> {
    return Promise.resolve(this.outcome(input, orgSeed));
  }

  /** The outcome, synchronously. */
  outcome(input: AnalysisWorkInput, orgSeed: string): AnalysisEngineOutcome {
    const plan = this.plan(input, orgSeed);
    const seed = sha256Hex(
      canonicalJson({
        requestSeed: plan.requestSeed,
        material: input.material.map((m) => ({ url: m.url, status: m.status, sha256: m.sha256 })),
        earlierWork: input.earlierWork.map((w) => w.id),
      }),
    );
    const common = { engine: this.name, engineVersion: this.version, seed };
    const magic = magicEffects(input.description ?? '');
    if (magic.failure === 'engine_failure') {
      return {
        status: 'failed',
        reason: 'engine_failure',
        message: 'Simulated engine failure ([fail] in description).',
        ...common,
      };
    }
    if (magic.failure === 'deadline_exceeded') {
      return {
        status: 'failed',
        reason: 'deadline_exceeded',
        message: 'Simulated deadline exceeded ([timeout] in description).',
        ...common,
      };
    }

    const findings: string[] = [];
    const factors = new Set<RiskFactor>();
    const recommendations: string[] = [];

    const material = readMaterial(input, findings, factors, recommendations);
    findings.push(...earlierWorkFindings(input.earlierWork, plan));
    const analysts = plan.analystCount > 0 ? analystWork(input, plan, orgSeed) : null;
    if (analysts) {
      findings.push(analysts.finding);
      if (analysts.agreement < LOW_AGREEMENT) {
        factors.add('low_analyst_agreement');
        if (input.analysisType !== 'deep_dive') {
          recommendations.push(
            'Run a deep_dive: more analysts working independently show whether their agreement is more than chance.',
          );
        }
      }
    }
    const verified = verifiedStatistics(input.verified);
    if (verified) {
      findings.push(
        `${verifiedSentence(verified, `${input.analysisType} analyses`)} The confidence is their calibrated hit rate.`,
      );
      if (verified.pValue >= SIGNIFICANCE_LEVEL) {
        factors.add('verified_at_chance');
        recommendations.push(
          `Your verified outcomes of ${input.analysisType} analyses are not above chance (p = ${roundSignificant(verified.pValue, 2)}): ` +
            'weigh this confidence as that record, and keep recording outcomes.',
        );
      }
    } else {
      // Nothing verified yet: the numbers rest on the chance prior.
      factors.add('prior_only_evidence');
      recommendations.push(
        'Record what was really there once it is known: verified outcomes replace the chance prior as the evidence behind confidence.',
      );
    }

    const components = [material.score, analysts?.agreement ?? null].filter(
      (value): value is number => value !== null,
    );
    const confidence = verified
      ? verified.calibratedRate
      : components.length === 0
        ? CHANCE_HIT_RATE
        : components.reduce((sum, value) => sum + value, 0) / components.length;
    const ordered = orderedFactors(factors);
    const level = riskLevel(ordered);
    const details: AnalysisScoreDetails = {
      material: material.score === null ? null : roundTo(material.score),
      analystAgreement: analysts ? roundTo(analysts.agreement) : null,
      judging: analysts?.judging ?? null,
      ...(verified && { verified: verifiedSummary(verified) }),
    };
    return {
      status: 'completed',
      evidence: verified ? 'verified' : 'prior',
      details,
      results: {
        summary: summaryOf(input, material, analysts, confidence, level, verified),
        key_findings: findings,
        confidence_score: roundTo(confidence),
        risk_assessment: { level, factors: ordered },
        recommendations,
        descriptors: analysts?.descriptors ?? [],
      },
      ...common,
    };
  }
}

function requestSeed(input: AnalysisRequestInput, orgSeed: string): string {
  return sha256Hex(
    canonicalJson({
      engineVersion: SIMULATED_ENGINE_VERSION,
      analysis: {
        targetType: input.targetType,
        analysisType: input.analysisType,
        description: input.description,
        coordinates: input.coordinates && {
          latitude: input.coordinates.latitude,
          longitude: input.coordinates.longitude,
        },
        photoCount: input.photoCount,
        documentCount: input.documentCount,
      },
      orgSeed,
    }),
  );
}

interface MaterialReading {
  read: number;
  total: number;
  /** Calibrated share of items read and consistent with the target (null without material). */
  score: number | null;
}

/** Findings from each reference item, and the factors they raise. */
function readMaterial(
  input: AnalysisWorkInput,
  findings: string[],
  factors: Set<RiskFactor>,
  recommendations: string[],
): MaterialReading {
  const total = input.material.length;
  if (total === 0) {
    factors.add('missing_material');
    findings.push('No reference material was given: nothing about the target could be checked.');
    recommendations.push(
      'Add reference photos or documents: they are the only evidence a quick_scan reads.',
    );
    return { read: 0, total, score: null };
  }
  let read = 0;
  let consistent = 0;
  const counters = { photo: 0, document: 0 };
  for (const item of input.material) {
    counters[item.kind] += 1;
    const label = `${item.kind === 'photo' ? 'Photo' : 'Document'} ${counters[item.kind]}`;
    if (item.status === 'failed') {
      findings.push(`${label} could not be used: ${item.error ?? 'it could not be fetched'}.`);
      recommendations.push(
        `Check ${label.toLowerCase()} (${item.url}): ${item.error ?? 'failed'}.`,
      );
      continue;
    }
    read += 1;
    const far =
      item.kind === 'photo' ? photoFinding(item, label, input, findings, recommendations) : false;
    if (item.kind === 'document') findings.push(documentFinding(item, label));
    if (far) factors.add('gps_far_from_coordinates');
    else consistent += 1;
  }
  if (read < total) factors.add(read === 0 ? 'all_material_unreadable' : 'unreadable_material');
  return { read, total, score: calibratedTrackRecord(consistent, total, CHANCE_HIT_RATE) };
}

/** Records what a photo shows about place and time; true when it was taken far from the given coordinates. */
function photoFinding(
  item: AnalysisMaterialFacts,
  label: string,
  input: AnalysisWorkInput,
  findings: string[],
  recommendations: string[],
): boolean {
  const size =
    item.width && item.height
      ? `${item.width}×${item.height} ${typeName(item.content_type)}`
      : typeName(item.content_type);
  const exif = item.exif ?? null;
  const when = exif?.captured_at ? ` was taken on ${exif.captured_at.slice(0, 10)}` : '';
  const hasGps = exif !== null && exif.latitude !== null && exif.longitude !== null;
  if (!hasGps) {
    findings.push(
      when
        ? `${label} (${size})${when} and carries no GPS position.`
        : `${label} (${size}) carries neither a capture time nor a GPS position.`,
    );
    return false;
  }
  const point = { latitude: exif.latitude!, longitude: exif.longitude! };
  if (input.coordinates === null) {
    findings.push(
      `${label} (${size})${when} at ${point.latitude.toFixed(5)}, ${point.longitude.toFixed(5)}; no coordinates were given to compare with.`,
    );
    return false;
  }
  const meters = haversineMeters(point, input.coordinates);
  findings.push(
    `${label} (${size})${when || ' (no capture time)'} ${when ? 'at' : 'was taken'} ${formatDistance(meters)} from the given coordinates.`,
  );
  if (meters <= GPS_FAR_METERS) return false;
  recommendations.push(
    `Verify the coordinates or ${label.toLowerCase()}: it was taken ${formatDistance(meters)} away.`,
  );
  return true;
}

function documentFinding(item: AnalysisMaterialFacts, label: string): string {
  const pages = item.pages ?? null;
  const kind = `${typeName(item.content_type)}${pages === null ? '' : `, ${pages} page${pages === 1 ? '' : 's'}`}`;
  const text = (item.text_excerpt ?? '').trim();
  if (text === '') return `${label} (${kind}) holds no readable text.`;
  const excerpt =
    text.length > EXCERPT_IN_FINDING ? `${text.slice(0, EXCERPT_IN_FINDING).trimEnd()}…` : text;
  return `${label} (${kind}) reads: “${excerpt}”`;
}

function earlierWorkFindings(work: readonly EarlierWork[], plan: AnalysisPlan): string[] {
  if (plan.crossReference === null) return [];
  const nearby = work.filter((w) => w.relation === 'nearby');
  const same = work.filter((w) => w.relation === 'same_target');
  const findings: string[] = [];
  const radius = formatDistance(plan.crossReference.radiusMeters);
  findings.push(
    nearby.length === 0
      ? `No earlier finished work of your organisation lies within ${radius} of the coordinates.`
      : `${count(nearby.length, 'earlier piece')} of finished work lie${nearby.length === 1 ? 's' : ''} within ${radius} of the coordinates (${listIds(nearby)}).`,
  );
  if (same.length > 0) {
    findings.push(
      `${count(same.length, 'earlier piece')} of finished work had the same target description (${listIds(same)}).`,
    );
  }
  return findings;
}

interface AnalystReading {
  agreement: number;
  descriptors: string[];
  finding: string;
  judging: NonNullable<AnalysisScoreDetails['judging']>;
}

/** The simulated analysts' blind work on the target, scored as sessions are: at chance by construction. */
function analystWork(
  input: AnalysisWorkInput,
  plan: AnalysisPlan,
  orgSeed: string,
): AnalystReading {
  const target =
    input.description ??
    (input.coordinates
      ? `${input.coordinates.latitude},${input.coordinates.longitude}`
      : input.targetType);
  const truth = drawGroundTruth(truthSeed({ type: 'remote_viewing', target }, orgSeed));
  const contributions = drawContributions(
    plan.requestSeed,
    truth.searchArea,
    plan.analystCount,
    null,
  );
  const scores = scoreSession(truth, contributions);
  const support = Object.entries(scores.descriptorSupport);
  const majority = support.filter(([, share]) => share >= 0.5).map(([term]) => term);
  const top = support
    .slice(0, 3)
    .map(([term, share]) => `${term} (${Math.round(share * 100)} %)`)
    .join(', ');
  const pValue = binomialTailP(scores.hits, scores.trials, CHANCE_HIT_RATE);
  return {
    agreement: scores.confidenceScore,
    descriptors: majority,
    judging: {
      hits: scores.hits,
      trials: scores.trials,
      p0: CHANCE_HIT_RATE,
      p_value: roundSignificant(pValue),
    },
    finding:
      `${plan.analystCount} simulated analysts worked on the target blind: their agreement is ${roundTo(scores.confidenceScore, 2)} ` +
      `and their judged trials scored ${scores.hits} of ${scores.trials} against a chance rate of ${CHANCE_HIT_RATE} ` +
      `(p = ${roundSignificant(pValue, 2)}). Most described: ${top || 'nothing in common'}.`,
  };
}

function summaryOf(
  input: AnalysisWorkInput,
  material: MaterialReading,
  analysts: AnalystReading | null,
  confidence: number,
  level: RiskLevel,
  verified: VerifiedOutcomeStatistics | null,
): string {
  const kind = {
    quick_scan: 'Quick scan',
    comprehensive: 'Comprehensive analysis',
    deep_dive: 'Deep dive',
  }[input.analysisType];
  const parts = [
    material.total === 0
      ? 'no reference material'
      : `${material.read} of ${material.total} reference items read`,
  ];
  if (analysts) parts.push(`analyst agreement ${roundTo(analysts.agreement, 2)}`);
  if (input.earlierWork.length > 0)
    parts.push(`${count(input.earlierWork.length, 'earlier piece')} of work cross-referenced`);
  const evidence = verified
    ? `${verified.n} verified outcome${verified.n === 1 ? '' : 's'} of your organisation's ${input.analysisType} analyses ` +
      `(${verified.hits} hit${verified.hits === 1 ? '' : 's'} where chance expects ${roundSignificant(verified.expectedHits, 3)})`
    : 'the chance prior (no verified outcomes yet)';
  return `${kind} of ${input.targetType === 'object' || input.targetType === 'event' ? 'an' : 'a'} ${input.targetType} target: ${parts.join(', ')}. Confidence ${roundTo(confidence, 2)} rests on ${evidence}; risk ${level}.`;
}

/** Factors in the order RISK_FACTORS lists them, so the output is stable. */
function orderedFactors(factors: ReadonlySet<RiskFactor>): RiskFactor[] {
  return (Object.keys(RISK_FACTORS) as RiskFactor[]).filter((factor) => factors.has(factor));
}

/** Sum of the factors' weights: 0 low, 1–2 medium, 3–4 high, 5 or more critical. */
export function riskLevel(factors: readonly RiskFactor[]): RiskLevel {
  const weight = factors.reduce((sum, factor) => sum + RISK_FACTORS[factor], 0);
  if (weight === 0) return 'low';
  if (weight <= 2) return 'medium';
  if (weight <= 4) return 'high';
  return 'critical';
}

function typeName(contentType: string | null): string {
  if (contentType === null) return 'unknown type';
  const known: Record<string, string> = {
    'image/jpeg': 'JPEG',
    'image/png': 'PNG',
    'image/webp': 'WebP',
    'image/gif': 'GIF',
    'image/tiff': 'TIFF',
    'application/pdf': 'PDF',
    'text/plain': 'text',
  };
  return known[contentType] ?? contentType;
}

function formatDistance(meters: number): string {
  return meters < 1_000 ? `${Math.round(meters)} m` : `${roundTo(meters / 1_000, 1)} km`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function listIds(work: readonly EarlierWork[]): string {
  const shown = work.slice(0, 3).map((w) => w.id);
  return work.length > 3 ? `${shown.join(', ')} and ${work.length - 3} more` : shown.join(', ');
}
