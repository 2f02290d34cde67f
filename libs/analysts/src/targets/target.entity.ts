import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { TenantOwned } from '#database';

/** A target of the tenant's pool, where judging draws its decoys from (migration 1764108000000). */
@Entity({ name: 'targets' })
// (organization_id, mode, created_at DESC, id DESC): TypeORM cannot declare a descending column.
@Index('targets_tenant_created_idx', { synchronize: false })
export class TargetEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'text', array: true, default: () => `'{}'` })
  descriptors!: string[];

  @Column({ type: 'double precision', nullable: true })
  latitude!: number | null;

  @Column({ type: 'double precision', nullable: true })
  longitude!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
