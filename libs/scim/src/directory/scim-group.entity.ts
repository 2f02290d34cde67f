import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';

/**
 * A group an identity provider pushed through SCIM (migration 1764133200000).
 * Its `display_name` is what a person's `groups` hold, and so what the
 * organisation's SSO connection maps to scopes: one mapping for SAML, LDAP
 * and SCIM. Unique per organisation without regard to case, through the
 * expression index `scim_groups_organization_name_idx`.
 */
@Entity({ name: 'scim_groups' })
@Index('scim_groups_organization_name_idx', { synchronize: false })
export class ScimGroupEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_scim_groups' })
  id!: string;

  @ForeignKey('organizations', { name: 'FK_scim_groups_organization', onDelete: 'CASCADE' })
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ name: 'display_name', type: 'text' })
  displayName!: string;

  @Column({ name: 'external_id', type: 'text', nullable: true })
  externalId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
