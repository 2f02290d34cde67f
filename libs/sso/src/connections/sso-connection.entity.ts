import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { MemberRole } from '#auth';
import type { Mode } from '#common';
import type { JsonObject } from '#database';
import type { SsoConnectionType } from './sso-connection.js';

/**
 * An organisation's SAML identity provider or LDAP directory (migrations
 * 1764100800000 and 1764111600000). The schema only: the service reads and
 * writes it as an `SsoConnection` through `SsoConnectionsRepository`.
 * `mode` is the mode it was made in, not a scope: it serves both.
 */
@Entity({ name: 'sso_connections' })
@Check('CHK_sso_connections_type', `"type" IN ('saml', 'ldap')`)
@Check('CHK_sso_connections_mode', `"mode" IN ('live', 'test')`)
@Check(
  'CHK_sso_connections_jit_roles',
  `"jit_roles" <@ ARRAY['admin', 'analyst', 'judge']::text[] AND cardinality("jit_roles") > 0`,
)
@Index('sso_connections_tenant_created_idx', ['organizationId', 'mode', 'createdAt', 'id'])
export class SsoConnectionEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  // `organizations` is libs/organizations' table: named, not imported.
  @ForeignKey('organizations', { name: 'FK_sso_connections_organization', onDelete: 'CASCADE' })
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ type: 'text' })
  mode!: Mode;

  @Column({ type: 'text' })
  type!: SsoConnectionType;

  @Column({ type: 'text' })
  name!: string;

  /** The domains as listed; their claims (and whether proven) are `sso_email_domains` rows. */
  @Column({ name: 'email_domains', type: 'text', array: true })
  emailDomains!: string[];

  @Column({ name: 'default_scopes', type: 'text', array: true })
  defaultScopes!: string[];

  @Column({ name: 'group_scopes', type: 'jsonb', default: () => "'{}'" })
  groupScopes!: JsonObject;

  @Column({ name: 'jit_provisioning', type: 'boolean', default: true })
  jitProvisioning!: boolean;

  @Column({ name: 'jit_roles', type: 'text', array: true, default: () => "'{admin}'" })
  jitRoles!: MemberRole[];

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** The type's settings that are not secret (`SamlConfig` or `LdapConfig`). */
  @Column({ type: 'jsonb' })
  config!: JsonObject;

  /** The LDAP bind password or the SAML SP private key, sealed with SIGNING_KEY_SECRET. */
  @Column({ name: 'secret_sealed', type: 'text', nullable: true })
  secretSealed!: string | null;

  @Column({ name: 'metadata_fetched_at', type: 'timestamptz', nullable: true })
  metadataFetchedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
