import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { TenantOwned } from '#database';

/** What a batch holds: sessions, target analyses or dowsing queries, which share the batch paths. */
export const BATCH_KINDS = ['sessions', 'analyses', 'dowsing'] as const;
export type BatchKind = (typeof BATCH_KINDS)[number];

/** Items created together by one request; their own rows say how each is doing. */
@Entity({ name: 'batches' })
@Index('batches_tenant_created_idx', ['organizationId', 'mode', 'createdAt'])
export class BatchEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  kind!: BatchKind;

  @Column({ name: 'item_count', type: 'integer' })
  itemCount!: number;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
