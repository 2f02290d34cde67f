import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { Mode } from '#common';
import type { ReportParameters } from './report.js';

/**
 * A report asked for and, once built, its document (migration
 * 1764093600000): `content_oid` names the PostgreSQL large object that holds
 * it, unlinked with the row by a trigger. (`oid` is a type the service's
 * data sources add to TypeORM's list: `dataSourceOf` in #database.)
 */
@Entity({ name: 'reports' })
@Check('reports_status_check', `status IN ('queued', 'processing', 'completed', 'failed')`)
@Check('reports_type_check', `report_type IN ('performance', 'history', 'usage')`)
@Check('reports_format_check', `format IN ('pdf', 'csv', 'json')`)
// (tenant, created_at DESC, id DESC) and a partial index, which TypeORM cannot declare.
@Index('reports_tenant_created_idx', { synchronize: false })
@Index('reports_unfinished_idx', { synchronize: false })
@Index('reports_expires_idx', ['expiresAt'])
export class ReportEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  // `organizations` is libs/organizations' table: named, not imported.
  @ForeignKey('organizations', { name: 'FK_reports_organization', onDelete: 'CASCADE' })
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ type: 'text' })
  mode!: Mode;

  @Column({ name: 'report_type', type: 'text' })
  reportType!: string;

  @Column({ type: 'text' })
  format!: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  parameters!: ReportParameters;

  @Column({ type: 'text', default: 'queued' })
  status!: string;

  @Column({ type: 'text', nullable: true })
  failure!: string | null;

  @Column({ name: 'content_oid', type: 'oid' as 'bigint', nullable: true })
  contentOid!: string | null;

  @Column({ name: 'content_type', type: 'text', nullable: true })
  contentType!: string | null;

  @Column({ type: 'text', nullable: true })
  filename!: string | null;

  @Column({ name: 'byte_size', type: 'bigint', nullable: true })
  byteSize!: string | null;

  @Column({ name: 'row_count', type: 'integer', nullable: true })
  rowCount!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
