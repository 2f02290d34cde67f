import type { PatternRequest } from '#analyses';
import { AppError } from '#common';
import type { PatternRecognitionDto } from './pattern-recognition.dto.js';

/** A pattern-recognition body with its defaults, checked beyond what the DTO's rules can see. */
export function toPatternRequest(body: PatternRecognitionDto): PatternRequest {
  if (body.items && body.filter) {
    throw AppError.invalid('filter', 'send either items or filter, not both');
  }
  const filter = body.filter ?? {};
  const dateFrom = filter.date_from === undefined ? undefined : new Date(filter.date_from);
  const dateTo = filter.date_to === undefined ? undefined : new Date(filter.date_to);
  if (dateFrom && dateTo && dateFrom > dateTo) {
    throw AppError.invalid('filter.date_to', 'must not be before date_from');
  }
  return {
    ids: body.items,
    kinds: filter.kinds,
    type: filter.type,
    dateFrom,
    dateTo,
    minSupport: body.min_support ?? 2,
    clusterRadiusMeters: body.cluster_radius_meters ?? 5000,
    minClusterSize: body.min_cluster_size ?? 3,
    correction: body.correction ?? 'holm',
  };
}
