import { DESCRIPTOR_TERMS } from '#engines';
import { distinctDescriptors, saicAccuracy, saicReliability } from '#statistics';

/**
 * SAIC scores of one response against the truth (docs/statistics.md): both
 * coded over the descriptor vocabulary (DESCRIPTOR_TERMS) with membership 1
 * for each term the list holds (case and spaces aside) and 0 otherwise; free
 * words outside the vocabulary count for neither side. Null when the truth
 * holds no vocabulary term: there is nothing to be right about.
 */
export function descriptorScores(
  truth: readonly string[],
  response: readonly string[],
): { accuracy: number; reliability: number } | null {
  const target = memberships(truth);
  if (!target.some((m) => m > 0)) return null;
  const answer = memberships(response);
  return { accuracy: saicAccuracy(target, answer), reliability: saicReliability(target, answer) };
}

function memberships(list: readonly string[]): number[] {
  const held = distinctDescriptors(list);
  return DESCRIPTOR_TERMS.map((term) => (held.has(term) ? 1 : 0));
}
