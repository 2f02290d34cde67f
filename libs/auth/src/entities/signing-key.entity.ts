import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { JsonObject } from '#database';

/**
 * A token-signing key pair. Published in the JWKS from `created_at`, used for
 * signing from `activates_at` (so verifiers can fetch it first), kept published
 * until `retires_at` plus the token lifetime.
 */
@Entity({ name: 'signing_keys' })
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'text' })
  kid!: string;

  @Column({ type: 'text' })
  algorithm!: string;

  @Column({ name: 'public_jwk', type: 'jsonb' })
  publicJwk!: JsonObject;

  /** The private JWK, encrypted with SIGNING_KEY_SECRET when that is set (`enc:v1:` prefix). */
  @Column({ name: 'private_jwk', type: 'text' })
  privateJwk!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'activates_at', type: 'timestamptz' })
  activatesAt!: Date;

  @Column({ name: 'retires_at', type: 'timestamptz', nullable: true })
  retiresAt!: Date | null;
}
