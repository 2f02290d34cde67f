/** Output rounding, applied only when results leave the engine: enough
 *  digits for any consumer, none of the floating-point noise. */

export function roundTo(value: number, decimals = 6): number {
  const factor = 10 ** decimals;
  // + 0 turns −0 into 0 so JSON never shows "-0".
  return Math.round(value * factor) / factor + 0;
}

/** Significant digits, for p-values that can be far below 1e-6. */
export function roundSignificant(value: number, digits = 6): number {
  return value === 0 ? 0 : Number(value.toPrecision(digits));
}

/**
 * Rounds shares that add up to 1 so that the rounded ones still do: each is
 * floored to `decimals` places and the units left over go to the largest
 * remainders (earlier first on a tie), as in a largest-remainder
 * apportionment. Sorted input stays sorted, and no share moves by more than
 * one unit of the last place. The rounded values add up to exactly
 * 10^decimals units; as floating-point numbers their sum is 1 within 1e-12.
 */
export function roundToUnitSum(shares: readonly number[], decimals = 6): number[] {
  const scale = 10 ** decimals;
  const total = shares.reduce((sum, share) => sum + share, 0);
  if (shares.some((share) => !(share >= 0)) || Math.abs(total - 1) > 1e-9) {
    throw new RangeError(`shares must be non-negative and add up to 1, got ${total}`);
  }
  // The tiny nudge keeps 0.29 * 100 = 28.999999999999996 from flooring to 28.
  const exact = shares.map((share) => (share / total) * scale);
  const units = exact.map((value) => Math.floor(value + 1e-7));
  let left = scale - units.reduce((sum, unit) => sum + unit, 0);
  const order = exact
    .map((value, i) => ({ i, remainder: value - units[i]! }))
    .sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    units[i]! += 1;
    left -= 1;
  }
  return units.map((unit) => unit / scale);
}
