import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';

/** A person who signs in on the authorization page; local accounts keep an argon2id hash. */
@Entity({ name: 'users' })
@Check('CHK_users_identity_source', `"identity_source" IN ('local', 'saml', 'ldap')`)
@Check('CHK_users_roles', `"roles" <@ ARRAY['admin', 'analyst', 'judge']::text[]`)
@Index('users_invitation_hash_key', ['invitationHash'], {
  unique: true,
  where: '"invitation_hash" IS NOT NULL',
})
export class UserEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Index('users_organization_id_idx')
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  /** Stored lower-cased; unique through the expression index `users_email_key`. */
  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'text' })
  name!: string;

  /** argon2id in PHC form; null for accounts that only sign in through SSO. */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  /** `local`, or the kind of SSO connection the person last signed in through. */
  @Column({ name: 'identity_source', type: 'text', default: 'local' })
  identitySource!: IdentitySource;

  @Column({ name: 'sso_connection_id', type: 'uuid', nullable: true })
  ssoConnectionId!: string | null;

  /** The groups the IdP or directory gave at the last sign-in. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  groups!: string[];

  /**
   * What the person's tokens may carry at most: mapped from their SSO groups
   * at the last sign-in, or for people added through the API the scopes of
   * the credential that added them (narrowed by whoever later gives them a
   * role or a new invitation); null when unbounded (bounded by the client alone).
   */
  @Column({ type: 'text', array: true, nullable: true })
  scopes!: string[] | null;

  @Column({ name: 'last_sign_in_at', type: 'timestamptz', nullable: true })
  lastSignInAt!: Date | null;

  /** What the person does in the organisation (docs/analysts.md); accounts from before are admins. */
  @Column({ type: 'text', array: true, default: () => "'{admin}'" })
  roles!: MemberRole[];

  /** SHA-256 (hex) of the one-time invitation token, until the person sets a password. */
  @Column({ name: 'invitation_hash', type: 'text', nullable: true })
  invitationHash!: string | null;

  @Column({ name: 'invitation_expires_at', type: 'timestamptz', nullable: true })
  invitationExpiresAt!: Date | null;

  /** The identity provider's own id of the person (SCIM `externalId`). */
  @Column({ name: 'scim_external_id', type: 'text', nullable: true })
  scimExternalId!: string | null;

  /** When SCIM provisioning took charge of the person; null for people it does not manage. */
  @Column({ name: 'scim_provisioned_at', type: 'timestamptz', nullable: true })
  scimProvisionedAt!: Date | null;
}

export type IdentitySource = 'local' | 'saml' | 'ldap';

/** `admin` runs the organisation; `analyst` does blind work; `judge` ranks it (several allowed). */
export const MEMBER_ROLES = ['admin', 'analyst', 'judge'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
