import type { Assignment, CombinedResults } from '#analysts';
import {
  type AnalysisResultsData,
  LOW_AGREEMENT,
  RISK_FACTORS,
  type RiskFactor,
  riskLevel,
} from '#engines';
import { descriptorAgreement } from '#statistics';
import type { AnalysisEntity } from './entities/analysis.entity.js';
import { SIGNIFICANCE_LEVEL } from './pattern-recognition.service.js';

/** Descriptors listed as key findings. */
const KEY_FINDINGS = 5;

/**
 * The AnalysisResults of an analyst analysis (docs/analysts.md, "Analyses
 * and dowsing by people"), every number from combineSubmissions:
 * - `summary`: how many analysts worked blind, the most supported
 *   descriptors with their support, and each analyst's first line of notes;
 * - `key_findings`: the most supported descriptors (up to 5), each with how
 *   many analysts reported it, then the combined position when any was given;
 * - `confidence_score`: combineSubmissions' (verified outcomes, else
 *   agreement or the calibrated track record);
 * - `risk_assessment`: the analysts' collective view of how far the result
 *   can be relied on, in the simulator's named factors and levels
 *   (riskLevel): `low_analyst_agreement` when several analysts' descriptor
 *   agreement is below LOW_AGREEMENT (0.5), `prior_only_evidence` when no
 *   analyst has an established judged track record and nothing is verified,
 *   `verified_at_chance` when the verified outcomes are not above chance;
 *   material factors never apply (people do not read the material);
 * - `recommendations`: what would make it firmer, one per factor;
 * - `descriptors`: those reported by at least half of the analysts.
 */
export function analysisResultsFrom(
  analysis: Pick<AnalysisEntity, 'targetType'>,
  submissions: readonly Pick<Assignment, 'notes' | 'descriptors'>[],
  combined: CombinedResults,
): AnalysisResultsData {
  const n = submissions.length;
  const analysts = `${n} analyst${n === 1 ? '' : 's'}`;
  const supported = combined.descriptors.slice(0, KEY_FINDINGS);
  const share = (d: string) => combined.descriptorSupport[d] ?? 0;
  const count = (d: string) => Math.round(share(d) * n);
  const notes = submissions
    .map((s) => s.notes?.split('\n')[0]?.trim())
    .filter((note): note is string => !!note)
    .map((note) => note.slice(0, 200));
  const summary = [
    `Combined from ${analysts} working blind on this ${analysis.targetType}.`,
    supported.length > 0
      ? `Most supported descriptors: ${supported.map((d) => `${d} (${count(d)} of ${n})`).join(', ')}.`
      : 'No descriptors were reported.',
    ...(notes.length > 0 ? [`Notes: ${notes.join(' / ')}`] : []),
  ].join(' ');
  const keyFindings = supported.map(
    (d) => `${d}: reported by ${count(d)} of ${n} (${Math.round(share(d) * 100)} %)`,
  );
  if (combined.coordinates) {
    keyFindings.push(
      `Combined position ${combined.coordinates.latitude}, ${combined.coordinates.longitude} (weighted geometric median, location confidence ${combined.coordinates.confidence})`,
    );
  }
  const confidence = combined.confidenceScore;
  const agreement = descriptorAgreement(submissions.map((s) => s.descriptors ?? []));
  const factors = new Set<RiskFactor>();
  const recommendations: string[] = [];
  if (n === 1) {
    recommendations.push(
      'Task more analysts (analyst_count): several working independently show whether they agree beyond chance.',
    );
  } else if (agreement !== null && agreement < LOW_AGREEMENT) {
    factors.add('low_analyst_agreement');
    keyFindings.push(
      `The ${analysts} agree little on what they described (agreement ${round(agreement)})`,
    );
    recommendations.push(
      'Task more analysts (analyst_count): whether their agreement is more than chance needs more of them.',
    );
  }
  if (combined.evidence === 'verified') {
    if (combined.statisticalValidation.p_value >= SIGNIFICANCE_LEVEL) {
      factors.add('verified_at_chance');
      recommendations.push(
        'Your verified outcomes of this analysis type are not above chance: weigh this confidence as that record, and keep recording outcomes.',
      );
    }
  } else if (combined.evidence === 'prior') {
    factors.add('prior_only_evidence');
    recommendations.push(
      'Judge the work blind (judging: true) so the analysts build judged track records, and record what was really there once it is known: both replace the chance prior behind confidence.',
    );
  }
  const ordered = (Object.keys(RISK_FACTORS) as RiskFactor[]).filter((f) => factors.has(f));
  return {
    summary,
    key_findings: keyFindings,
    confidence_score: confidence,
    risk_assessment: { level: riskLevel(ordered), factors: ordered },
    recommendations,
    descriptors: combined.descriptors.filter((d) => share(d) >= 0.5),
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

export function agreementOf(lists: readonly (readonly string[])[]): number | null {
  const agreement = descriptorAgreement(lists);
  return agreement === null ? null : round(agreement);
}
