import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Mode } from '#common';

/** An OAuth 2.0 client (RFC 7591 metadata names); confidential clients keep only a secret hash. */
@Entity({ name: 'oauth_clients' })
export class OAuthClientEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Index('oauth_clients_client_id_key', { unique: true })
  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ type: 'text', default: 'live' })
  mode!: Mode;

  @Column({ name: 'client_name', type: 'text' })
  clientName!: string;

  /** scrypt hash of the secret; null for public clients (token_endpoint_auth_method "none"). */
  @Column({ name: 'secret_hash', type: 'text', nullable: true })
  secretHash!: string | null;

  @Column({ name: 'token_endpoint_auth_method', type: 'text', default: 'client_secret_post' })
  tokenEndpointAuthMethod!: string;

  @Column({
    name: 'grant_types',
    type: 'text',
    array: true,
    default: () => "'{client_credentials}'",
  })
  grantTypes!: string[];

  @Column({ name: 'redirect_uris', type: 'text', array: true, default: () => "'{}'" })
  redirectUris!: string[];

  @Column({ type: 'text', array: true })
  scopes!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
