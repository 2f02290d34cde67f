import { TenantOwned } from '#database';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Modality, PrivacyLevel, SessionStatus, SessionType } from '#common';
import type { JsonObject } from '#database';

// The list indexes INCLUDE the filtered columns, which TypeORM cannot declare:
// migration 1764057600000 defines them, and the schema builder leaves them be.
@Entity({ name: 'sessions' })
@Index('sessions_tenant_created_idx', { synchronize: false })
@Index('sessions_tenant_status_created_idx', { synchronize: false })
@Index('sessions_tenant_analyst_created_idx', { synchronize: false })
@Index('sessions_tenant_score_idx', { synchronize: false })
@Index('sessions_running_updated_idx', { synchronize: false })
// Completed sessions by normalised target (migration 1764075600000), for analyses' cross-references.
@Index('sessions_tenant_target_key_idx', { synchronize: false })
export class SessionEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  type!: SessionType;

  @Column({ type: 'text' })
  target!: string;

  @Column({ type: 'text', nullable: true })
  modality!: Modality | null;

  @Column({ name: 'duration_minutes', type: 'smallint' })
  durationMinutes!: number;

  @Column({ name: 'privacy_level', type: 'text' })
  privacyLevel!: PrivacyLevel;

  @Column({ type: 'text' })
  status!: SessionStatus;

  @Column({ type: 'smallint', default: 0 })
  progress!: number;

  @Column({ type: 'text' })
  engine!: string;

  @Column({ name: 'engine_version', type: 'text', nullable: true })
  engineVersion!: string | null;

  /** Seed of the simulated engine's run; sketches are re-drawn from it on request. */
  @Column({ name: 'engine_seed', type: 'text', nullable: true })
  engineSeed!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  results!: JsonObject | null;

  @Column({ name: 'confidence_score', type: 'double precision', nullable: true })
  confidenceScore!: number | null;

  @Column({ name: 'analyst_id', type: 'text', nullable: true })
  analystId!: string | null;

  @Column({ type: 'text', nullable: true })
  evidence!: string | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason!: string | null;

  /** Bumped by every event about this session, so receivers can drop stale ones. */
  @Column({ name: 'event_sequence', type: 'integer', default: 0 })
  eventSequence!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;

  @Column({ name: 'estimated_completion', type: 'timestamptz', nullable: true })
  estimatedCompletion!: Date | null;

  /** The batch it was created in, if any. */
  @Index('sessions_batch_idx', { where: 'batch_id IS NOT NULL' })
  @Column({ name: 'batch_id', type: 'uuid', nullable: true })
  batchId!: string | null;

  /** Analysts working independently: 1, or N for a collaborative session, or the sum for a merge. */
  @Column({ name: 'analyst_count', type: 'smallint', default: 1 })
  analystCount!: number;

  /** For a merged session: the sessions it combines, in the order given. */
  @Column({ name: 'merged_from', type: 'uuid', array: true, nullable: true })
  mergedFrom!: string[] | null;
}
