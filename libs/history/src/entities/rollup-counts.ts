import { Column } from 'typeorm';

/**
 * What the rollups count for one key (migration 1764097200000): cases, their
 * verdicts, and the sums that mean confidence and mean chance baseline need.
 * Kept by the rollup triggers on `history_cases`, never written by the service.
 */
export abstract class RollupCounts {
  @Column({ type: 'bigint' })
  cases!: string;

  @Column({ type: 'bigint' })
  verified!: string;

  @Column({ type: 'bigint' })
  hits!: string;

  @Column({ type: 'bigint' })
  partials!: string;

  @Column({ type: 'bigint' })
  misses!: string;

  @Column({ name: 'confidence_sum', type: 'numeric' })
  confidenceSum!: string;

  @Column({ name: 'confidence_count', type: 'bigint' })
  confidenceCount!: string;

  @Column({ name: 'baseline_sum', type: 'numeric' })
  baselineSum!: string;

  @Column({ name: 'baseline_count', type: 'bigint' })
  baselineCount!: string;
}
