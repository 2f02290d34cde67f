import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { TenantOwned } from '#database';

/**
 * What was done to a resource that no longer exists to say so itself (a
 * deleted session), or a change whose earlier value stays on record (a
 * corrected outcome): who, when, which request, and the earlier value.
 */
@Entity({ name: 'audit_records' })
@Index('audit_records_tenant_created_idx', ['organizationId', 'mode', 'createdAt'])
export class AuditRecordEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /** e.g. `session.deleted`. */
  @Column({ type: 'text' })
  action!: string;

  /** Public id of the resource acted on. */
  @Column({ name: 'resource_id', type: 'text' })
  resourceId!: string;

  /** The OAuth client id or API key id that acted. */
  @Column({ type: 'text' })
  actor!: string;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  /** The earlier value a change replaced; null for a deletion, which keeps no data. */
  @Column({ type: 'jsonb', nullable: true })
  details!: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
