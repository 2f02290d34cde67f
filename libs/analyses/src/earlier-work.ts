import { Injectable } from '@nestjs/common';
import { toPublicId, type Tenant } from '#common';
import { Sql } from '#database';
import type { EarlierWork } from '#engines';
import { haversineMeters } from '#statistics';
import { SessionsService } from '#sessions';
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
    private readonly sql: Sql,
    private readonly sessions: SessionsService,
  ) {}

  async find(analysis: AnalysisEntity, radiusMeters: number): Promise<EarlierWork[]> {
    const tenant: Tenant = { organizationId: analysis.organizationId, mode: analysis.mode };
    const [nearby, sameAnalyses, sameSessions] = await Promise.all([
      this.nearby(analysis, radiusMeters),
      this.sameDescription(analysis),
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
  private async nearby(analysis: AnalysisEntity, radiusMeters: number): Promise<EarlierWork[]> {
    if (analysis.latitude === null || analysis.longitude === null) return [];
    const center = { latitude: analysis.latitude, longitude: analysis.longitude };
    const band = radiusMeters / METERS_PER_DEGREE_LATITUDE;
    const rows = await this.sql.rows<Row & { latitude: number; longitude: number }>(
      `SELECT id, confidence_score, completed_at, latitude, longitude FROM analyses
        WHERE organization_id = $1 AND mode = $2 AND status = 'completed'
          AND latitude BETWEEN $3 AND $4 AND created_at < $5 AND request_fingerprint <> $6
        LIMIT 5000`,
      [
        analysis.organizationId,
        analysis.mode,
        center.latitude - band,
        center.latitude + band,
        analysis.createdAt,
        analysis.requestFingerprint,
      ],
    );
    return rows
      .map((row) => ({ row, meters: haversineMeters(center, row) }))
      .filter(({ meters }) => meters <= radiusMeters)
      .sort((a, b) => a.meters - b.meters)
      .slice(0, MAX_PER_RELATION)
      .map(({ row, meters }) => earlier(row, 'nearby', Math.round(meters)));
  }

  private async sameDescription(analysis: AnalysisEntity): Promise<EarlierWork[]> {
    if (analysis.descriptionKey === null) return [];
    const rows = await this.sql.rows<Row>(
      `SELECT id, confidence_score, completed_at FROM analyses
        WHERE organization_id = $1 AND mode = $2 AND status = 'completed'
          AND description_key = $3 AND created_at < $4 AND request_fingerprint <> $5
        ORDER BY created_at DESC LIMIT $6`,
      [
        analysis.organizationId,
        analysis.mode,
        analysis.descriptionKey,
        analysis.createdAt,
        analysis.requestFingerprint,
        MAX_PER_RELATION,
      ],
    );
    return rows.map((row) => earlier(row, 'same_target', null));
  }
}

interface Row {
  id: string;
  confidence_score: number | null;
  completed_at: Date;
}

function earlier(
  row: Row,
  relation: EarlierWork['relation'],
  distanceMeters: number | null,
): EarlierWork {
  return {
    kind: 'analysis',
    id: toPublicId('analysis', row.id),
    relation,
    distanceMeters,
    confidenceScore: row.confidence_score,
    completedAt: row.completed_at.toISOString(),
  };
}
