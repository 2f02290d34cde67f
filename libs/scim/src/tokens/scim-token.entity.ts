import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  Unique,
} from 'typeorm';

/**
 * A bearer token an identity provider's SCIM client calls `/scim/v2` with
 * (migration 1764133200000): only its SHA-256 is kept, the token itself is
 * shown once. It reaches its organisation's people and groups in live mode.
 */
@Entity({ name: 'scim_tokens' })
@Unique('UQ_scim_tokens_hash', ['tokenHash'])
@Index('scim_tokens_organization_idx', ['organizationId', 'createdAt'])
export class ScimTokenEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_scim_tokens' })
  id!: string;

  @ForeignKey('organizations', { name: 'FK_scim_tokens_organization', onDelete: 'CASCADE' })
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
