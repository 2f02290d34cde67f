import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Mode } from '#common';

/**
 * How many readings of a tenant fall in one tile of the heatmaps' global
 * grid (heatmap-grid.ts), and the sum of their confidences, at every other
 * level from 4 to 18. Kept by triggers on `dowsing_readings` in the same
 * statement as the readings (migration 1764082800000), so a heatmap over a
 * million readings reads thousands of tiles instead.
 */
@Entity({ name: 'dowsing_reading_tiles' })
// Tall rectangles of tiles (a heatmap's west and east frames) are read column by column.
@Index('dowsing_reading_tiles_column_idx', [
  'organizationId',
  'mode',
  'level',
  'tileColumn',
  'tileRow',
])
export class DowsingReadingTileEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @PrimaryColumn({ type: 'text' })
  mode!: Mode;

  /** Tiles of 180°/2^level. */
  @PrimaryColumn({ type: 'smallint' })
  level!: number;

  /** floor((latitude + 90) / (180 / 2^level)) */
  @PrimaryColumn({ name: 'tile_row', type: 'integer' })
  tileRow!: number;

  /** floor((longitude + 180) / (180 / 2^level)) */
  @PrimaryColumn({ name: 'tile_column', type: 'integer' })
  tileColumn!: number;

  @Column({ type: 'bigint' })
  readings!: string;

  @Column({ name: 'confidence_sum', type: 'double precision' })
  confidenceSum!: number;
}
