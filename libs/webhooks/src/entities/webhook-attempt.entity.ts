import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One HTTP request of a delivery, as the receiver answered it (or did not). */
@Entity({ name: 'webhook_attempts' })
@Index('webhook_attempts_delivery_idx', ['deliveryId', 'attemptNumber'])
export class WebhookAttemptEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId!: string;

  @Column({ name: 'attempt_number', type: 'integer' })
  attemptNumber!: number;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  /** The first KiB of the receiver's answer. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;
}
