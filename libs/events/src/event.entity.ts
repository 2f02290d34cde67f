import { TenantOwned } from '#database';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { JsonObject } from '#database';

/**
 * The event log and the transactional outbox in one table: a row is written in
 * the same transaction as the change it announces; `relayed_at` is set once the
 * relay has handed it to the queues.
 */
@Entity({ name: 'events' })
@Index('events_tenant_created_idx', ['organizationId', 'mode', 'createdAt', 'id'])
@Index('events_unrelayed_idx', ['createdAt', 'id'], { where: 'relayed_at IS NULL' })
@Index('events_created_idx', ['createdAt'])
export class EventEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'jsonb' })
  data!: JsonObject;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ name: 'pending_webhooks', type: 'integer', default: 0 })
  pendingWebhooks!: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt!: Date;

  /** Set on a test event: only this webhook receives it, and it stays out of lists and live updates. */
  @Column({ name: 'target_webhook_id', type: 'uuid', nullable: true })
  targetWebhookId!: string | null;

  @Column({ name: 'relayed_at', type: 'timestamptz', nullable: true })
  relayedAt!: Date | null;
}
