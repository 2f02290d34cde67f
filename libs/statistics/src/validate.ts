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

export function assertPositiveFinite(name: string, value: number): void {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be finite and > 0, got ${value}`);
  }
}

export function assertIntegerAtLeast(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`);
  }
}

/** Latitude in [−90, 90], longitude finite (any turn of the globe is accepted). */
export function assertGeoPoints(
  name: string,
  points: readonly { latitude: number; longitude: number }[],
): void {
  points.forEach((p, i) => {
    if (!(Math.abs(p.latitude) <= 90) || !Number.isFinite(p.longitude)) {
      throw new RangeError(`${name}[${i}] is not a valid point: ${JSON.stringify(p)}`);
    }
  });
}
