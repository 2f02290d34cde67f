/** Input guards shared by the statistics functions: bad input is a caller bug,
 *  so it throws instead of producing a plausible-looking number. */

export function assertCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

export function assertProbability(name: string, value: number): void {
  if (!(value >= 0 && value <= 1)) {
    throw new RangeError(`${name} must be in [0, 1], got ${value}`);
  }
}

export function assertHitsWithinTrials(hits: number, n: number): void {
  assertCount('hits', hits);
  assertCount('n', n);
  if (hits > n) throw new RangeError(`hits (${hits}) cannot exceed n (${n})`);
}
