import { Column, Entity, Index } from 'typeorm';
import type { JsonObject } from '#database';
import type { AnalysisPriority, AnalysisTargetType, AnalysisType } from '#engines';
import { WorkEntity } from '#work';
import type { MaterialItem } from '../material/material-item.js';

export const ANALYSIS_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

/** The reference material as submitted: URLs and the target's coordinates. */
export interface ReferenceMaterialRequest {
  photos: string[];
  documents: string[];
  coordinates: { latitude: number; longitude: number } | null;
}

// The list and queue indexes are partial or INCLUDE columns, which TypeORM
// cannot declare: migration 1764075600000 defines them.
@Entity({ name: 'analyses' })
@Index('analyses_tenant_created_idx', { synchronize: false })
@Index('analyses_tenant_status_created_idx', { synchronize: false })
@Index('analyses_tenant_location_idx', { synchronize: false })
@Index('analyses_tenant_description_idx', { synchronize: false })
@Index('analyses_queued_idx', { synchronize: false })
@Index('analyses_running_updated_idx', { synchronize: false })
@Index('analyses_completed_idx', { synchronize: false })
@Index('analyses_batch_idx', ['batchId'], { where: 'batch_id IS NOT NULL' })
export class AnalysisEntity extends WorkEntity<AnalysisStatus> {
  @Column({ name: 'target_type', type: 'text' })
  targetType!: AnalysisTargetType;

  @Column({ name: 'analysis_type', type: 'text' })
  analysisType!: AnalysisType;

  @Column({ type: 'text' })
  priority!: AnalysisPriority;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** Lower-cased, whitespace-collapsed description: earlier work on "the same description" is found by it. */
  @Column({ name: 'description_key', type: 'text', nullable: true })
  descriptionKey!: string | null;

  @Column({ name: 'reference_material', type: 'jsonb' })
  referenceMaterial!: ReferenceMaterialRequest;

  @Column({ type: 'double precision', nullable: true })
  latitude!: number | null;

  @Column({ type: 'double precision', nullable: true })
  longitude!: number | null;

  /** Hex SHA-256 of the canonical request: a resubmission is not independent earlier work. */
  @Column({ name: 'request_fingerprint', type: 'text' })
  requestFingerprint!: string;

  /** Each reference item as the worker read it; null until fetched. */
  @Column({ type: 'jsonb', nullable: true })
  material!: MaterialItem[] | null;

  /** Earlier work the cross-referencing step found, kept so a resumed run sees the same. */
  @Column({ name: 'earlier_work', type: 'jsonb', nullable: true })
  earlierWork!: JsonObject[] | null;

  /** Steps of the engine's plan completed so far. */
  @Column({ name: 'steps_done', type: 'smallint', default: 0 })
  stepsDone!: number;

  /** The plan's steps, fixed when the analysis starts. */
  @Column({ type: 'text', array: true, nullable: true })
  steps!: string[] | null;

  @Column({ type: 'jsonb', nullable: true })
  results!: JsonObject | null;

  /** How the confidence score was built (material, analysts, judging), for audit. */
  @Column({ name: 'score_details', type: 'jsonb', nullable: true })
  scoreDetails!: JsonObject | null;

  @Column({ name: 'confidence_score', type: 'double precision', nullable: true })
  confidenceScore!: number | null;

  @Column({ name: 'failure_message', type: 'text', nullable: true })
  failureMessage!: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'estimated_completion', type: 'timestamptz', nullable: true })
  estimatedCompletion!: Date | null;
}
