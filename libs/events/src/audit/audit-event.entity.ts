import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { TenantOwned } from '#database';

/**
 * One security-relevant change (`AuditLog`): who acted, on what, from where,
 * and what changed. Append-only: a trigger refuses UPDATE and DELETE except
 * the retention sweep's (`sweep_audit_events`), and in production the
 * application's role is granted SELECT and INSERT only (docs/audit-log.md).
 */
@Entity({ name: 'audit_events' })
@Index('audit_events_tenant_created_idx', ['organizationId', 'mode', 'createdAt', 'id'])
@Index('audit_events_tenant_actor_idx', ['organizationId', 'mode', 'actorId', 'createdAt'])
@Index('audit_events_tenant_target_idx', ['organizationId', 'mode', 'targetId', 'createdAt'])
@Index('audit_events_created_idx', ['createdAt'])
export class AuditEventEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_audit_events' })
  id!: string;

  /** e.g. `api_key.created` (AUDIT_ACTIONS). */
  @Column({ type: 'text' })
  action!: string;

  @Column({ name: 'actor_type', type: 'text' })
  actorType!: string;

  @Column({ name: 'actor_id', type: 'text' })
  actorId!: string;

  @Column({ name: 'target_type', type: 'text' })
  targetType!: string;

  @Column({ name: 'target_id', type: 'text' })
  targetId!: string;

  @Column({ type: 'text', nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'text', nullable: true })
  userAgent!: string | null;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  changes!: Record<string, { before: unknown; after: unknown }> | null;

  @Column({ type: 'jsonb', nullable: true })
  details!: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
