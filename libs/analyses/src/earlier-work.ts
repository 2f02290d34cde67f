import { Injectable } from '@nestjs/common';
import { toPublicId, type Tenant } from '#common';
import type { EarlierWork } from '#engines';
import { haversineMeters } from '#statistics';
import { SessionsService } from '#sessions';
import {
  AnalysesRepository,
  type CompletedAnalysis,
  type EarlierThan,
} from './analyses.repository.js';
import type { AnalysisEntity } from './entities/analysis.entity.js';

/** At most this many earlier pieces of each relation are cross-referenced (the closest or newest). */
const MAX_PER_RELATION = 20;
const METERS_PER_DEGREE_LATITUDE = 111_320;

/**
 * The organisation's earlier finished work that bears on an analysis's
 * target: completed analyses within a radius of its coordinates, and
 * completed analyses and sessions with the same description (whitespace
 * collapsed, case ignored). Only work created before it counts, and never a
 * resubmission of the same request (same fingerprint): that is the same
 * evidence again, not independent work.
 */
@Injectable()
export class EarlierWorkFinder {
  constructor(
    private readonly analyses: AnalysesRepository,
    private readonly sessions: SessionsService,
  ) {}

  async find(analysis: AnalysisEntity, radiusMeters: number): Promise<EarlierWork[]> {
    const tenant: Tenant = { organizationId: analysis.organizationId, mode: analysis.mode };
    const [nearby, sameAnalyses, sameSessions] = await Promise.all([
      this.nearby(tenant, analysis, radiusMeters),
      this.sameDescription(tenant, analysis),
      analysis.descriptionKey === null
        ? []
        : this.sessions.completedOnTarget(
            tenant,
            analysis.descriptionKey,
            analysis.createdAt,
            MAX_PER_RELATION,
          ),
    ]);
    const near = new Set(nearby.map((work) => work.id));
    return [
      ...nearby,
      // One relation per piece of work: nearby says more than the same words.
      ...sameAnalyses.filter((work) => !near.has(work.id)),
      ...sameSessions.map((session): EarlierWork => ({
        kind: 'session',
        id: toPublicId('session', session.id),
        relation: 'same_target',
        distanceMeters: null,
        confidenceScore: session.confidenceScore,
        completedAt: session.completedAt!.toISOString(),
      })),
    ];
  }

  /** Completed analyses within the radius, closest first (a latitude band from the index, then the true distance). */
  private async nearby(
    tenant: Tenant,
    analysis: AnalysisEntity,
    radiusMeters: number,
  ): Promise<EarlierWork[]> {
    if (analysis.latitude === null || analysis.longitude === null) return [];
    const center = { latitude: analysis.latitude, longitude: analysis.longitude };
    const band = radiusMeters / METERS_PER_DEGREE_LATITUDE;
    const rows = await this.analyses.completedInBand(
      tenant,
      { south: center.latitude - band, north: center.latitude + band },
      earlierThan(analysis),
    );
    return rows
      .map((row) => ({ row, meters: haversineMeters(center, row) }))
      .filter(({ meters }) => meters <= radiusMeters)
      .sort((a, b) => a.meters - b.meters)
      .slice(0, MAX_PER_RELATION)
      .map(({ row, meters }) => earlier(row, 'nearby', Math.round(meters)));
  }

  private async sameDescription(tenant: Tenant, analysis: AnalysisEntity): Promise<EarlierWork[]> {
    if (analysis.descriptionKey === null) return [];
    const found = await this.analyses.completedWithDescription(
      tenant,
      analysis.descriptionKey,
      earlierThan(analysis),
      MAX_PER_RELATION,
    );
    return found.map((work) => earlier(work, 'same_target', null));
  }
}

/** Only work created before the analysis counts, and never a resubmission of its request. */
function earlierThan(analysis: AnalysisEntity): EarlierThan {
  return { createdBefore: analysis.createdAt, requestFingerprint: analysis.requestFingerprint };
}

function earlier(
  work: CompletedAnalysis,
  relation: EarlierWork['relation'],
  distanceMeters: number | null,
): EarlierWork {
  return {
    kind: 'analysis',
    id: toPublicId('analysis', work.id),
    relation,
    distanceMeters,
    confidenceScore: work.confidenceScore,
    completedAt: work.completedAt.toISOString(),
  };
}
