import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { TenantOwned } from '#database';

export const WEBHOOK_STATUSES = ['enabled', 'failed', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** `standard`: the full envelope; `v1`: the short version 1 envelope (`event`, `data`, `timestamp`). */
export const ENVELOPE_FORMATS = ['standard', 'v1'] as const;
export type EnvelopeFormat = (typeof ENVELOPE_FORMATS)[number];

/**
 * A registered receiver. Its signing secrets are sealed at rest (they must be
 * read back to sign, so they cannot be hashed); during a rotation's overlap
 * the previous secret signs too.
 */
@Entity({ name: 'webhooks' })
@Index('webhooks_org_mode_created_idx', ['organizationId', 'mode', 'createdAt', 'id'])
export class WebhookEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  url!: string;

  /** Event names, or `*` for all of them. */
  @Column({ type: 'text', array: true })
  events!: string[];

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @Column({ type: 'text', default: 'enabled' })
  status!: WebhookStatus;

  /** Why the status is what it is (a 410 from the receiver, exhausted retries), for people. */
  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason!: string | null;

  @Column({ name: 'envelope_format', type: 'text', default: 'standard' })
  envelopeFormat!: EnvelopeFormat;

  @Column({ name: 'secret_sealed', type: 'text' })
  secretSealed!: string;

  @Column({ name: 'previous_secret_sealed', type: 'text', nullable: true })
  previousSecretSealed!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  /** Sequence of the events about this webhook (`webhook.failed`). */
  @Column({ name: 'event_sequence', type: 'integer', default: 0 })
  eventSequence!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
