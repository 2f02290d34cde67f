import { Column, Entity, Index } from 'typeorm';
import type { Modality, PrivacyLevel, SessionStatus, SessionType } from '#common';
import type { JsonObject } from '#database';
import { WorkEntity } from '#work';

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
@Index('sessions_batch_idx', ['batchId'], { where: 'batch_id IS NOT NULL' })
export class SessionEntity extends WorkEntity<SessionStatus> {
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

  @Column({ type: 'smallint', default: 0 })
  progress!: number;

  @Column({ type: 'jsonb', nullable: true })
  results!: JsonObject | null;

  @Column({ name: 'confidence_score', type: 'double precision', nullable: true })
  confidenceScore!: number | null;

  @Column({ name: 'analyst_id', type: 'text', nullable: true })
  analystId!: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'estimated_completion', type: 'timestamptz', nullable: true })
  estimatedCompletion!: Date | null;

  /** Analysts working independently: 1, or N for a collaborative session, or the sum for a merge. */
  @Column({ name: 'analyst_count', type: 'smallint', default: 1 })
  analystCount!: number;

  /** For a merged session: the sessions it combines, in the order given. */
  @Column({ name: 'merged_from', type: 'uuid', array: true, nullable: true })
  mergedFrom!: string[] | null;
}
