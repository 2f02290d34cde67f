/**
 * SAIC fuzzy-set scoring (May, Utts, Humphrey, Luke, Frivold & Trask 1990,
 * "Advances in remote-viewing analysis", JP 54): the target and the response
 * are coded as membership values in [0, 1] over the same descriptor list, and
 * the overlap Σ min(t, r) is compared with each side.
 * - accuracy    = Σ min(t, r) / Σ t  (share of the target that was described)
 * - reliability = Σ min(t, r) / Σ r  (share of the response that was correct)
 * An empty denominator means there is nothing to be right about (or nothing
 * was said), so the score is 0 rather than NaN.
 */

function overlap(target: readonly number[], response: readonly number[]): number {
  if (target.length !== response.length) {
    throw new RangeError(
      `target and response must code the same descriptors (${target.length} vs ${response.length})`,
    );
  }
  let sum = 0;
  for (let i = 0; i < target.length; i++) {
    const t = target[i]!;
    const r = response[i]!;
    if (!(t >= 0 && t <= 1) || !(r >= 0 && r <= 1)) {
      throw new RangeError(`memberships must be in [0, 1] (index ${i}: ${t}, ${r})`);
    }
    sum += Math.min(t, r);
  }
  return sum;
}

function total(values: readonly number[]): number {
  return values.reduce((acc, v) => acc + v, 0);
}

export function saicAccuracy(target: readonly number[], response: readonly number[]): number {
  const common = overlap(target, response);
  const denominator = total(target);
  return denominator === 0 ? 0 : common / denominator;
}

export function saicReliability(target: readonly number[], response: readonly number[]): number {
  const common = overlap(target, response);
  const denominator = total(response);
  return denominator === 0 ? 0 : common / denominator;
}
