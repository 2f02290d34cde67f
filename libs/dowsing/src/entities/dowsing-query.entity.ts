import { Column, Entity, Index } from 'typeorm';
import type { JsonObject } from '#database';
import type { DowsingQueryType, DowsingVariant, PrecisionLevel } from '#engines';
import { WorkEntity } from '#work';

/** `pending` while people answer it (the `analyst` engine); the simulator answers at once. */
export const DOWSING_STATUSES = ['pending', 'completed', 'failed'] as const;
export type DowsingStatus = (typeof DOWSING_STATUSES)[number];

// The list indexes INCLUDE the filtered columns, which TypeORM cannot declare:
// migration 1764079200000 defines them; 1764082800000 the expression index on
// lower(question) that temporal analysis by question reads.
@Entity({ name: 'dowsing_queries' })
@Index('dowsing_queries_tenant_created_idx', { synchronize: false })
@Index('dowsing_queries_tenant_status_created_idx', { synchronize: false })
@Index('dowsing_queries_tenant_question_idx', { synchronize: false })
@Index('dowsing_queries_batch_idx', ['batchId'], { where: 'batch_id IS NOT NULL' })
export class DowsingQueryEntity extends WorkEntity<DowsingStatus> {
  /** `query` (POST /dowsing/query) or one of the seven v1 variants. */
  @Column({ type: 'text' })
  variant!: DowsingVariant;

  @Column({ name: 'query_type', type: 'text' })
  queryType!: DowsingQueryType;

  @Column({ type: 'text' })
  question!: string;

  @Column({ name: 'precision_level', type: 'text' })
  precisionLevel!: PrecisionLevel;

  /** The request's `context` (location, timeframe, parameters). */
  @Column({ type: 'jsonb' })
  context!: JsonObject;

  /** The variant's own input (points, bounds, options…); `{"variant":"query"}` for the plain query. */
  @Column({ type: 'jsonb' })
  input!: JsonObject;

  @Column({ type: 'jsonb', nullable: true })
  result!: JsonObject | null;

  @Column({ type: 'double precision', nullable: true })
  confidence!: number | null;

  @Column({ name: 'failure_message', type: 'text', nullable: true })
  failureMessage!: string | null;
}
