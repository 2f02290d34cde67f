/**
 * Agreement of independent picks from a judging set of k options:
 *   1 − H(picks) / H_max,  H = −Σ pⱼ ln pⱼ over the observed shares,
 *   H_max = ln(min(k, m)) for m picks.
 * H_max is the most spread-out split m analysts can actually produce, so
 * "everyone picked something different" is 0 even when m < k, and
 * "everyone picked the same" is 1.
 *
 * Fewer than two picks cannot agree or disagree: the result is null.
 * Throws if k < 2 or the picks name more than k distinct options.
 */
export function pickAgreement(picks: readonly (string | number)[], k: number): number | null {
  if (!Number.isInteger(k) || k < 2) throw new RangeError(`k must be an integer ≥ 2, got ${k}`);
  if (picks.length < 2) return null;
  const counts = new Map<string | number, number>();
  for (const pick of picks) counts.set(pick, (counts.get(pick) ?? 0) + 1);
  if (counts.size > k)
    throw new RangeError(`${counts.size} distinct picks exceed the k = ${k} options`);
  let entropy = 0;
  for (const count of counts.values()) {
    const share = count / picks.length;
    entropy -= share * Math.log(share);
  }
  const maxEntropy = Math.log(Math.min(k, picks.length));
  return clamp01(1 - entropy / maxEntropy);
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
