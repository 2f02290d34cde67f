import { SeededRandom } from './seeded-random.js';

/**
 * The simulated dowser (docs/statistics.md, "Dowsing"): for each query the
 * sandbox draws a synthetic ground truth, then readings that ignore it, and
 * counts the readings that hit the truth. Because the readings are drawn
 * independently of the truth, each one hits with probability exactly the
 * chance baseline p0, so the hits are Binomial(n, p0) — the null hypothesis
 * the statistics test holds by construction. Every draw comes from its own
 * named stream of the query's seed ('truth', 'readings', 'ties').
 */

/** Raw counts behind a dowsing result's statistics. */
export interface Judged {
  hits: number;
  trials: number;
  /** Chance that one trial hits. */
  p0: number;
}

/** n readings, each choosing one of k options. */
export interface CategoricalReadings extends Judged {
  /** Per reading, the index of the option it chose. */
  picks: number[];
  /** Per option, how many readings chose it. */
  counts: number[];
  /** Option indices, most chosen first; ties in an order drawn by lot. */
  ranking: number[];
}

/**
 * The truth is one of k options (uniform); each reading chooses one of them
 * uniformly, so it hits with probability exactly 1/k.
 */
export function readCategorical(seed: string, k: number, n: number): CategoricalReadings {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  const truth = new SeededRandom(seed, 'truth').int(0, k - 1);
  const random = new SeededRandom(seed, 'readings');
  const picks = Array.from({ length: n }, () => random.int(0, k - 1));
  const counts = Array.from({ length: k }, () => 0);
  for (const pick of picks) counts[pick]! += 1;
  const lot = new SeededRandom(seed, 'ties').sample(
    counts.map((_, i) => i),
    k,
  );
  const ranking = [...lot].sort((a, b) => counts[b]! - counts[a]!);
  return {
    picks,
    counts,
    ranking,
    hits: picks.filter((pick) => pick === truth).length,
    trials: n,
    p0: 1 / k,
  };
}

/** A point in the azimuthal equidistant plane of a search circle: metres east (x) and north (y). */
export interface PlanePoint {
  x: number;
  y: number;
}

/** Readings over a disc of radius R, in passes of `marksPerPass` marks each. */
export interface DiscReadings extends Judged {
  /** Every mark, pass after pass. */
  marks: PlanePoint[];
}

/**
 * The truth is uniform over the disc of radius R − accuracy (so the whole
 * disc within accuracy of it lies in the search circle); every mark is
 * uniform over the circle of radius R. A mark hits when it lies within
 * `accuracy` of the truth, with probability exactly q = (accuracy / R)²; a
 * pass hits when any of its m marks does, with probability 1 − (1 − q)^m
 * (the marks are independent). Distances are measured in the circle's
 * azimuthal equidistant plane, where the distance from the centre is the
 * great-circle distance.
 */
export function readDisc(
  seed: string,
  radius: number,
  accuracy: number,
  passes: number,
  marksPerPass: number,
): DiscReadings {
  if (!(accuracy > 0 && accuracy < radius)) {
    throw new RangeError(`accuracy must lie strictly between 0 and the radius, got ${accuracy}`);
  }
  const truth = uniformInDisc(new SeededRandom(seed, 'truth'), radius - accuracy);
  const random = new SeededRandom(seed, 'readings');
  const marks = Array.from({ length: passes * marksPerPass }, () => uniformInDisc(random, radius));
  let hits = 0;
  for (let pass = 0; pass < passes; pass++) {
    const own = marks.slice(pass * marksPerPass, (pass + 1) * marksPerPass);
    if (own.some((mark) => distance(mark, truth) <= accuracy)) hits += 1;
  }
  const q = (accuracy / radius) ** 2;
  return { marks, hits, trials: passes, p0: 1 - (1 - q) ** marksPerPass };
}

/** Depth readings over 0..maxDepth. */
export interface DepthReadings extends Judged {
  depths: number[];
}

/**
 * The true depth is uniform over tolerance..maxDepth − tolerance; each
 * reading is uniform over 0..maxDepth and hits when within ± tolerance of
 * the truth, with probability exactly 2·tolerance / maxDepth.
 */
export function readDepths(
  seed: string,
  maxDepth: number,
  tolerance: number,
  n: number,
): DepthReadings {
  if (!(tolerance > 0 && 2 * tolerance < maxDepth)) {
    throw new RangeError(`tolerance must lie strictly between 0 and half the depth`);
  }
  const truth = tolerance + (maxDepth - 2 * tolerance) * new SeededRandom(seed, 'truth').next();
  const random = new SeededRandom(seed, 'readings');
  const depths = Array.from({ length: n }, () => maxDepth * random.next());
  return {
    depths,
    hits: depths.filter((depth) => Math.abs(depth - truth) <= tolerance).length,
    trials: n,
    p0: (2 * tolerance) / maxDepth,
  };
}

/** A reading the others gather round, and how many readings (itself included) lie near it. */
export interface DenseReading {
  index: number;
  support: number;
}

/**
 * The readings with the most readings near them (itself included), best
 * first, each farther than `apart` from those chosen before it, at most
 * `max`. Ties go to the earlier reading: readings are drawn independently,
 * so their order favours no place. O(n²) comparisons.
 */
export function densestReadings<T>(
  readings: readonly T[],
  near: (a: T, b: T) => boolean,
  apart: (a: T, b: T) => boolean,
  max: number,
): DenseReading[] {
  const support = readings.map((a) => readings.filter((b) => near(a, b)).length);
  const order = support.map((_, i) => i).sort((i, j) => support[j]! - support[i]! || i - j);
  const chosen: DenseReading[] = [];
  for (const index of order) {
    if (chosen.length >= max) break;
    if (chosen.every((c) => apart(readings[c.index]!, readings[index]!))) {
      chosen.push({ index, support: support[index]! });
    }
  }
  return chosen;
}

export function distance(a: PlanePoint, b: PlanePoint): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** Uniform by area over a disc about the origin (√u radius, uniform angle). */
function uniformInDisc(random: SeededRandom, radius: number): PlanePoint {
  const r = radius * Math.sqrt(random.next());
  const angle = 2 * Math.PI * random.next();
  return { x: r * Math.sin(angle), y: r * Math.cos(angle) };
}
