import type { Target } from '#analysts';
import { toPublicId } from '#common';
import type { TargetDto } from './target-response-v2.dto.js';

export function toTargetDto(target: Target, publicUrl: string): TargetDto {
  const targetId = toPublicId('target', target.id);
  return {
    target_id: targetId,
    description: target.description,
    descriptors: target.descriptors,
    coordinates:
      target.latitude !== null && target.longitude !== null
        ? { latitude: target.latitude, longitude: target.longitude }
        : null,
    photos: target.photos.map((photo) => {
      const photoId = toPublicId('targetPhoto', photo.id);
      return {
        photo_id: photoId,
        source_url: photo.sourceUrl,
        status: photo.status,
        content_type: photo.contentType,
        width: photo.width,
        height: photo.height,
        url:
          photo.status === 'fetched'
            ? `${publicUrl}/v2/targets/${targetId}/photos/${photoId}`
            : null,
        failure: photo.failure,
      };
    }),
    created_at: target.createdAt.toISOString(),
  };
}
