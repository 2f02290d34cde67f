import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { TenantOwned } from '#database';

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Why a delivery exists: fan-out of an event, a test request, a replay. */
export const DELIVERY_ORIGINS = ['event', 'test', 'replay'] as const;
export type DeliveryOrigin = (typeof DELIVERY_ORIGINS)[number];

/**
 * One event to one endpoint, with its retry state. PostgreSQL holds the whole
 * schedule, so retries survive restarts of the worker and of Redis; a worker
 * holds a delivery only for a short lease while it sends.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('webhook_deliveries_fanout_key', ['webhookId', 'eventId'], {
  unique: true,
  where: "origin = 'event'",
})
@Index('webhook_deliveries_due_idx', ['nextAttemptAt', 'id'], { where: "state = 'pending'" })
@Index('webhook_deliveries_webhook_due_idx', ['webhookId', 'nextAttemptAt', 'id'], {
  where: "state = 'pending'",
})
@Index('webhook_deliveries_webhook_created_idx', ['webhookId', 'createdAt', 'id'])
@Index('webhook_deliveries_event_idx', ['eventId'])
export class WebhookDeliveryEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @Column({ type: 'text' })
  origin!: DeliveryOrigin;

  @Column({ type: 'text', default: 'pending' })
  state!: DeliveryState;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** Attempts allowed in all: the schedule's 7, or one more for a manual retry. */
  @Column({ name: 'max_attempts', type: 'integer' })
  maxAttempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  /** While set and in the future, a worker is sending this delivery. */
  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil!: Date | null;

  /** Deliveries of one replay go out one at a time, in event order. */
  @Column({ name: 'replay_id', type: 'uuid', nullable: true })
  replayId!: string | null;

  @Column({ name: 'last_status_code', type: 'integer', nullable: true })
  lastStatusCode!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;
}
