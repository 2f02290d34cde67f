import { distinctDescriptors, haversineMeters, type GeoPoint } from '#statistics';
import type { CaseType } from '../history-case.js';

/** What to compare cases with: a case's own fields, or free text and more from a caller. */
export interface SimilarityProbe {
  text: string | null;
  descriptors: readonly string[];
  point: GeoPoint | null;
  date: Date | null;
  /** Only cases of this type. */
  type: CaseType | null;
  /** The probe's own case, never its own neighbour. */
  excludeId: string | null;
}

/**
 * How alike two cases are (docs/history.md, "Similar cases"): a weighted
 * mean of up to four components, each in 0..1. A component that one side
 * cannot have (no location, no descriptors, no date) is left out and the
 * other weights scale up, so a missing field neither helps nor hurts.
 */
export const SIMILARITY_WEIGHTS = {
  text: 0.4,
  descriptors: 0.3,
  distance: 0.2,
  time: 0.1,
} as const;
/** The distance at which the distance component falls to 1/e. */
export const DISTANCE_SCALE_KM = 100;
/** The time apart at which the time component falls to 1/e. */
export const TIME_SCALE_DAYS = 365;

export interface SimilarityComponents {
  /** Trigram similarity of the targets (pg_trgm: shared trigrams / all trigrams). */
  text: number | null;
  /** Jaccard index of the descriptor sets (case and spacing ignored). */
  descriptors: number | null;
  /** exp(−distance / 100 km), great-circle between the two locations. */
  distance: number | null;
  /** exp(−days apart / 365). */
  time: number | null;
}

export interface SimilaritySide {
  descriptors: readonly string[];
  point: GeoPoint | null;
  date: Date | null;
}

const DAY_MS = 86_400_000;

/** The components and their weighted mean; `textSimilarity` comes from PostgreSQL (null without text). */
export function similarityOf(
  probe: SimilaritySide,
  candidate: SimilaritySide,
  textSimilarity: number | null,
): { similarity: number; components: SimilarityComponents; distanceKm: number | null } {
  const a = distinctDescriptors(probe.descriptors);
  const b = distinctDescriptors(candidate.descriptors);
  const shared = [...a].filter((d) => b.has(d)).length;
  const distanceKm =
    probe.point && candidate.point ? haversineMeters(probe.point, candidate.point) / 1000 : null;
  const components: SimilarityComponents = {
    text: textSimilarity,
    descriptors: a.size > 0 && b.size > 0 ? shared / (a.size + b.size - shared) : null,
    distance: distanceKm === null ? null : Math.exp(-distanceKm / DISTANCE_SCALE_KM),
    time:
      probe.date && candidate.date
        ? Math.exp(
            -Math.abs(probe.date.getTime() - candidate.date.getTime()) / DAY_MS / TIME_SCALE_DAYS,
          )
        : null,
  };
  let weighted = 0;
  let weights = 0;
  for (const name of Object.keys(SIMILARITY_WEIGHTS) as (keyof SimilarityComponents)[]) {
    const value = components[name];
    if (value === null) continue;
    weighted += SIMILARITY_WEIGHTS[name] * value;
    weights += SIMILARITY_WEIGHTS[name];
  }
  return { similarity: weights === 0 ? 0 : weighted / weights, components, distanceKm };
}
