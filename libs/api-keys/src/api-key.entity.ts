import { TenantOwned } from '#database';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** An API key. The key itself is shown once; only its SHA-256 is kept. */
@Entity({ name: 'api_keys' })
@Index('api_keys_org_mode_created_idx', ['organizationId', 'mode', 'createdAt'])
export class ApiKeyEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Index('api_keys_secret_hash_key', { unique: true })
  @Column({ name: 'secret_hash', type: 'bytea' })
  secretHash!: Buffer;

  /** The first characters of the key (`sk_live_AbCd`), so people can tell keys apart. */
  @Column({ name: 'display_prefix', type: 'text' })
  displayPrefix!: string;

  @Column({ type: 'text', array: true })
  scopes!: string[];

  /** Who created it: the OAuth client id or API key id of the creator. */
  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
