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
