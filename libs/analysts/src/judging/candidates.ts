import { randomInt, randomUUID } from 'node:crypto';
import type { StoredCandidate } from './judging-task.js';

/** Fisher–Yates with crypto randomness: every order equally likely, none predictable. */
export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A fresh candidate id: random (v4), so ids say nothing of which was made first. */
export function newCandidateId(): string {
  return randomUUID();
}

/** A candidate as the judge sees it: nothing that tells the true one apart. */
export interface BlindCandidate {
  id: string;
  description: string;
  descriptors: string[];
  coordinates: { latitude: number; longitude: number } | null;
  /** The first `photoCount` photo ids of the candidate; served by position, never by id. */
  photoIds: string[];
}

/**
 * What the judge is shown of the candidates, in their stored order. The true
 * target often differs in shape from pool targets (a session's target is
 * text: no photos, maybe no coordinates), and a shape only it has would point
 * at it. So every kind of material is shown for all candidates or for none:
 * - photos: as many for each as the candidate with the fewest has (none if one has none);
 * - coordinates: only when every candidate has them;
 * - descriptors: only when every candidate has some.
 */
export function blindCandidates(candidates: readonly StoredCandidate[]): BlindCandidate[] {
  const photoCount = Math.min(...candidates.map((c) => c.photo_ids.length));
  const coordinates = candidates.every((c) => c.latitude !== null && c.longitude !== null);
  const descriptors = candidates.every((c) => c.descriptors.length > 0);
  return candidates.map((c) => ({
    id: c.id,
    description: c.description,
    descriptors: descriptors ? [...c.descriptors] : [],
    coordinates: coordinates ? { latitude: c.latitude!, longitude: c.longitude! } : null,
    photoIds: c.photo_ids.slice(0, photoCount),
  }));
}

/** Which kinds of material a candidate has: decoys like the truth in shape keep more of it shown. */
export interface CandidateShape {
  photos: boolean;
  coordinates: boolean;
  descriptors: boolean;
}

export function shapeOf(candidate: {
  photo_ids: readonly string[];
  latitude: number | null;
  longitude: number | null;
  descriptors: readonly string[];
}): CandidateShape {
  return {
    photos: candidate.photo_ids.length > 0,
    coordinates: candidate.latitude !== null && candidate.longitude !== null,
    descriptors: candidate.descriptors.length > 0,
  };
}

/** How many kinds of material two shapes share having (or lacking), 0–3. */
export function shapeMatch(a: CandidateShape, b: CandidateShape): number {
  return (
    Number(a.photos === b.photos) +
    Number(a.coordinates === b.coordinates) +
    Number(a.descriptors === b.descriptors)
  );
}

/**
 * Chooses `count` of `pool` at random, those shaped most like `truth` first
 * (so `blindCandidates` hides as little as it can), at random within a shape.
 */
export function chooseDecoys<T extends Parameters<typeof shapeOf>[0]>(
  pool: readonly T[],
  truth: CandidateShape,
  count: number,
): T[] {
  return shuffled(pool)
    .map((target) => ({ target, match: shapeMatch(shapeOf(target), truth) }))
    .sort((a, b) => b.match - a.match)
    .slice(0, count)
    .map((entry) => entry.target);
}
