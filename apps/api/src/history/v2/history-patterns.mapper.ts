import type { HistoryPatterns, HitAssociation, TimeBucket } from '#history';
import { rateDto } from '../../http/rate.dto.js';
import type {
  HistoryPatternsDto,
  HistoryHitAssociationDto,
  HistoryTimeBucketDto,
} from './history-patterns.dto.js';

export function toHistoryPatterns(patterns: HistoryPatterns): HistoryPatternsDto {
  return {
    window: {
      limit: patterns.window.limit,
      bounded: patterns.window.bounded,
      first_date: patterns.window.firstDate?.toISOString() ?? null,
      last_date: patterns.window.lastDate?.toISOString() ?? null,
    },
    correction: 'benjamini-hochberg',
    significance_level: patterns.significanceLevel,
    min_support: patterns.minSupport,
    cases: patterns.cases,
    verified: patterns.verified,
    hit_rate: patterns.hitRate === null ? null : rateDto(patterns.hitRate),
    descriptors: {
      distinct_terms: patterns.descriptors.distinctTerms,
      family_size: patterns.descriptors.familySize,
      patterns: patterns.descriptors.patterns.map((pattern) => ({
        term: pattern.term,
        share: rateDto(pattern.share),
        hits: hitsDto(pattern.hits),
      })),
    },
    places: {
      grid_degrees: patterns.places.gridDegrees,
      located: patterns.places.located,
      cells_occupied: patterns.places.cellsOccupied,
      family_size: patterns.places.familySize,
      patterns: patterns.places.patterns.map((pattern) => ({
        cell: pattern.cell,
        centroid: pattern.centroid,
        share: rateDto(pattern.share),
        hits: hitsDto(pattern.hits),
      })),
    },
    times: {
      time_zone: 'UTC',
      family_size: patterns.times.familySize,
      weekday: patterns.times.weekday.map(bucketDto),
      hour: patterns.times.hour.map(bucketDto),
      month: patterns.times.month.map(bucketDto),
    },
    warnings: patterns.warnings,
  };
}

function hitsDto(hits: HitAssociation | null): HistoryHitAssociationDto | null {
  return hits === null
    ? null
    : {
        hit_rate: rateDto(hits.hitRate),
        lift: hits.lift,
        share_of_hits: hits.shareOfHits,
        share_of_verified: hits.shareOfVerified,
        p_adjusted: hits.pAdjusted,
        significant: hits.significant,
      };
}

function bucketDto(bucket: TimeBucket): HistoryTimeBucketDto {
  return {
    bucket: bucket.bucket,
    share: rateDto(bucket.share),
    lift: bucket.lift,
    p_adjusted: bucket.pAdjusted,
    significant: bucket.significant,
  };
}
