import { Check, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Mode } from '#common';
import { RollupCounts } from './rollup-counts.js';

const PRIMARY_KEY = 'PK_history_analyst_rollups';

/**
 * The rollups per analyst named by the cases (each distinct analyst of a
 * case once), for performance per analyst and an analyst's filtered reads
 * (migration 1764097200000).
 */
@Entity({ name: 'history_analyst_rollups' })
@Check('CHK_history_analyst_rollups_grain', `"grain" IN ('day', 'week', 'month', 'all')`)
@Index('history_analyst_rollups_all_idx', ['organizationId', 'mode'], { where: `"grain" = 'all'` })
export class HistoryAnalystRollupEntity extends RollupCounts {
  @PrimaryColumn({ name: 'organization_id', type: 'uuid', primaryKeyConstraintName: PRIMARY_KEY })
  organizationId!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: PRIMARY_KEY })
  mode!: Mode;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: PRIMARY_KEY })
  analyst!: string;

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
