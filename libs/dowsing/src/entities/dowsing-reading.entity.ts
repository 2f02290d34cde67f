import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TenantOwned } from '#database';

/**
 * One located reading of a completed dowsing query (a location answer, a
 * point of multi_point, a cell of energy_map, a candidate…), kept apart from
 * the query so heatmaps and temporal analysis read only what they aggregate.
 * Deleting the query deletes its readings (in the same transaction).
 */
// The tenant indexes INCLUDE what aggregates read, which TypeORM cannot declare: migrations
// 1764079200000 (by latitude) and 1764082800000 (by longitude, for the heatmaps' edge strips).
@Entity({ name: 'dowsing_readings' })
@Index('dowsing_readings_tenant_location_idx', { synchronize: false })
@Index('dowsing_readings_tenant_longitude_idx', { synchronize: false })
@Index('dowsing_readings_query_idx', { synchronize: false })
export class DowsingReadingEntity extends TenantOwned {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column({ name: 'query_id', type: 'uuid' })
  queryId!: string;

  @Column({ type: 'double precision' })
  latitude!: number;

  @Column({ type: 'double precision' })
  longitude!: number;

  @Column({ type: 'double precision' })
  confidence!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
