import { Check, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '#common';
import { RollupCounts } from './rollup-counts.js';

const PRIMARY_KEY = 'PK_history_case_rollups';

/**
 * Counts of a tenant's unclassified cases per grain and period (a UTC day,
 * ISO week, month, or `all`), type, subtype, modality and work status: what
 * analytics reads instead of the cases (migration 1764097200000; a missing
 * subtype or modality is '').
 */
@Entity({ name: 'history_case_rollups' })
@Check('CHK_history_case_rollups_grain', `"grain" IN ('day', 'week', 'month', 'all')`)
export class HistoryCaseRollupEntity extends RollupCounts {
  @PrimaryColumn({ name: 'organization_id', type: 'uuid', primaryKeyConstraintName: PRIMARY_KEY })
  organizationId!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: PRIMARY_KEY })
  mode!: Mode;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: PRIMARY_KEY })
  grain!: string;

  @PrimaryColumn({ type: 'date', primaryKeyConstraintName: PRIMARY_KEY })
  period!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: PRIMARY_KEY })
  type!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: PRIMARY_KEY })
  subtype!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: PRIMARY_KEY })
  modality!: string;

  @PrimaryColumn({ name: 'work_status', type: 'text', primaryKeyConstraintName: PRIMARY_KEY })
  workStatus!: string;
}
