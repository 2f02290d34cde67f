import type { TargetEntity } from './target.entity.js';
import type { PoolTarget, Target, TargetPhoto } from './target.js';

/** A stored target with its photos, as the pool API shows it. */
export function targetOf(entity: TargetEntity, photos: readonly TargetPhoto[]): Target {
  return {
    id: entity.id,
    organizationId: entity.organizationId,
    mode: entity.mode,
    description: entity.description,
    descriptors: entity.descriptors,
    latitude: entity.latitude,
    longitude: entity.longitude,
    photos: [...photos],
    createdAt: entity.createdAt,
  };
}

/** A target as judging reads it: what a judge is shown, and its photos' ids. */
export function poolTargetOf(target: Target): PoolTarget {
  return {
    id: target.id,
    description: target.description,
    descriptors: target.descriptors,
    latitude: target.latitude,
    longitude: target.longitude,
    photos: target.photos.map((photo) => ({
      id: photo.id,
      status: photo.status,
      contentType: photo.contentType,
    })),
  };
}
