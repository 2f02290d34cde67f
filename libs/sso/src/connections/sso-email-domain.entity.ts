import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { DomainClaim } from './domain-claims.js';
import { SsoConnectionEntity } from './sso-connection.entity.js';

/**
 * A connection's claim on an email domain (migrations 1764100800000 and
 * 1764122400000): any number of connections may claim a domain, one only
 * hold it verified. The schema only: `SsoEmailDomainsRepository` reads and
 * writes it as `DomainClaim`s.
 */
@Entity({ name: 'sso_email_domains' })
@Check('CHK_sso_email_domains_status', `"status" IN ('pending', 'verified')`)
@Index('sso_email_domains_verified_key', ['domain'], {
  unique: true,
  where: `"status" = 'verified'`,
})
@Index('sso_email_domains_pending_idx', ['checkedAt'], { where: `"status" = 'pending'` })
export class SsoEmailDomainEntity {
  @ForeignKey(() => SsoConnectionEntity, {
    name: 'FK_sso_email_domains_connection',
    onDelete: 'CASCADE',
  })
  @Index('sso_email_domains_connection_idx')
  @PrimaryColumn({ name: 'connection_id', type: 'uuid' })
  connectionId!: string;

  @PrimaryColumn({ type: 'text' })
  domain!: string;

  @Column({ type: 'text', default: 'pending' })
  status!: DomainClaim['status'];

  @Column({ name: 'verification_token', type: 'text' })
  verificationToken!: string;

  @Column({ name: 'verified_at', type: 'timestamptz', nullable: true })
  verifiedAt!: Date | null;

  @Column({ name: 'checked_at', type: 'timestamptz', nullable: true })
  checkedAt!: Date | null;
}
