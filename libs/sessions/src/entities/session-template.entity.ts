import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Modality, PrivacyLevel, SessionType } from '#common';
import { TenantOwned } from '#database';

/** A named preset of session settings an organisation keeps (the built-in ones live in code). */
@Entity({ name: 'session_templates' })
@Index('session_templates_name_key', ['organizationId', 'mode', 'name'], { unique: true })
export class SessionTemplateEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'text' })
  type!: SessionType;

  @Column({ type: 'text', nullable: true })
  modality!: Modality | null;

  @Column({ name: 'duration_minutes', type: 'smallint' })
  durationMinutes!: number;

  @Column({ name: 'privacy_level', type: 'text' })
  privacyLevel!: PrivacyLevel;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
