import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { JsonObject } from '#database';

/**
 * What the authorization server (oidc-provider) stores: grants, codes, refresh
 * tokens, sessions and interactions, one row per model instance.
 */
@Entity({ name: 'oidc_payloads' })
export class OidcPayloadEntity {
  @PrimaryColumn({ type: 'text' })
  kind!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'jsonb' })
  payload!: JsonObject;

  @Index('oidc_payloads_grant_id_idx')
  @Column({ name: 'grant_id', type: 'text', nullable: true })
  grantId!: string | null;

  @Index('oidc_payloads_uid_idx')
  @Column({ type: 'text', nullable: true })
  uid!: string | null;

  @Column({ name: 'user_code', type: 'text', nullable: true })
  userCode!: string | null;

  @Index('oidc_payloads_expires_at_idx')
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  /** Set once, by a conditional update: a code or refresh token is consumed at most once. */
  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt!: Date | null;
}
