import type { PoolTarget } from '../targets/index.js';

/** Pool targets considered per draw at most: a uniform sample of a larger pool. */
export const DRAW_SAMPLE = 200;

/** A pool target in the shape a candidate is stored in: its fetched photos only, in order. */
export interface CandidateSource {
  id: string;
  description: string;
  descriptors: string[];
  latitude: number | null;
  longitude: number | null;
  photo_ids: string[];
}

export function candidateSource(target: PoolTarget): CandidateSource {
  return {
    id: target.id,
    description: target.description,
    descriptors: target.descriptors,
    latitude: target.latitude,
    longitude: target.longitude,
    photo_ids: target.photos.filter((p) => p.status === 'fetched').map((p) => p.id),
  };
}
