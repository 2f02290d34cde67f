import { Injectable } from '@nestjs/common';
import type { Mode, Tenant } from '#common';
import {
  rowMapping,
  Sql,
  tenantConditions,
  TenantLists,
  unfinishedWorkPages,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import type { UnfinishedPages, UnfinishedWork } from '#queue';
import type { Report } from './report.js';

const MAPPING = rowMapping<Report, ReportColumn>(
  'reports',
  {
    id: 'id',
    organization_id: 'organizationId',
    mode: 'mode',
    report_type: 'reportType',
    format: 'format',
    parameters: 'parameters',
    status: 'status',
    failure: 'failure',
    content_type: 'contentType',
    filename: 'filename',
    byte_size: 'byteSize',
    row_count: 'rowCount',
    created_at: 'createdAt',
    started_at: 'startedAt',
    completed_at: 'completedAt',
    expires_at: 'expiresAt',
  },
  ['parameters'],
);

/** The columns of `reports` but `content_oid`, the document's large object. */
type ReportColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'report_type'
  | 'format'
  | 'parameters'
  | 'status'
  | 'failure'
  | 'content_type'
  | 'filename'
  | 'byte_size'
  | 'row_count'
  | 'created_at'
  | 'started_at'
  | 'completed_at'
  | 'expires_at';

type ReportRow = Record<ReportColumn, unknown>;

const REPORT = {
  ...MAPPING,
  // bigint arrives as a string from node-postgres.
  fromRow(row: ReportRow): Report {
    const report = MAPPING.fromRow(row);
    return { ...report, byteSize: report.byteSize === null ? null : Number(report.byteSize) };
  },
};

/** A report whose build is owed, as the worker queues it again. */
export interface QueuedReport {
  id: string;
  organizationId: string;
  mode: Mode;
}

/** What a finished build stores with its report. */
export interface BuiltDocument {
  contentOid: number;
  contentType: string;
  filename: string;
  byteSize: number;
  rowCount: number;
}

/**
 * The `reports` table, and the large objects that hold the reports'
 * documents (PostgreSQL's lo_* functions; a trigger unlinks a report's with
 * its row). A report is read only until it expires: expired ones are gone
 * for the caller whether or not retention has deleted them yet.
 */
@Injectable()
export class ReportsRepository {
  private readonly lists: TenantLists<Report, ReportColumn>;

  constructor(private readonly sql: Sql) {
    this.lists = new TenantLists(sql, 'reports', REPORT, 'replicas');
  }

  /** A new report, queued; the stored row. */
  async insert(
    tx: Transaction,
    tenant: Tenant,
    report: Pick<Report, 'id' | 'reportType' | 'format' | 'parameters' | 'createdAt' | 'expiresAt'>,
  ): Promise<Report> {
    const [row] = await tx.rows<ReportRow>(
      `INSERT INTO reports (id, organization_id, mode, report_type, format, parameters, status, created_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8) RETURNING ${REPORT.selectList}`,
      [
        report.id,
        tenant.organizationId,
        tenant.mode,
        report.reportType,
        report.format,
        JSON.stringify(report.parameters),
        report.createdAt,
        report.expiresAt,
      ],
    );
    return REPORT.fromRow(row!);
  }

  /** The tenant's unexpired report. */
  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<Report | null> {
    const [row] = await on.rows<ReportRow>(
      `SELECT ${REPORT.selectList} FROM reports
        WHERE id = $1 AND organization_id = $2 AND mode = $3 AND expires_at > now()`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? REPORT.fromRow(row) : null;
  }

  /** The large object holding the report's document; null before it is built. */
  async contentOid(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<number | null> {
    const [row] = await on.rows<{ content_oid: number | null }>(
      `SELECT content_oid FROM reports WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row?.content_oid ?? null;
  }

  /** A keyset page of the tenant's unexpired reports, newest first, from a replica when one is usable. */
  page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<Report>> {
    const where = tenantConditions(tenant);
    where.and('expires_at > now()');
    return this.lists.page(tenant, where, request);
  }

  /** Deletes the tenant's unexpired report (its document with it); false when there is none. */
  async delete(tx: Transaction, tenant: Tenant, id: string): Promise<boolean> {
    const deleted = await tx.rows(
      `DELETE FROM reports WHERE id = $1 AND organization_id = $2 AND mode = $3 AND expires_at > now()
        RETURNING id`,
      [id, tenant.organizationId, tenant.mode],
    );
    return deleted.length > 0;
  }

  /**
   * Marks the report as being built, whichever tenant's (the build's job
   * names it by id); null when it is finished, deleted or expired. A report
   * already `processing` is claimed again: its earlier build died.
   */
  async claimForBuildAcrossTenants(tx: Transaction, id: string): Promise<Report | null> {
    const [row] = await tx.rows<ReportRow>(
      `UPDATE reports SET status = 'processing', started_at = now()
        WHERE id = $1 AND status IN ('queued', 'processing') AND expires_at > now()
        RETURNING ${REPORT.selectList}`,
      [id],
    );
    return row ? REPORT.fromRow(row) : null;
  }

  /** Completes the report being built with its document; its completion time, or null when it is no longer being built. */
  async complete(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    document: BuiltDocument,
  ): Promise<Date | null> {
    const [row] = await tx.rows<{ completed_at: Date }>(
      `UPDATE reports SET status = 'completed', completed_at = now(), content_oid = $4,
          content_type = $5, filename = $6, byte_size = $7, row_count = $8
        WHERE id = $1 AND organization_id = $2 AND mode = $3 AND status = 'processing'
        RETURNING completed_at`,
      [
        id,
        tenant.organizationId,
        tenant.mode,
        document.contentOid,
        document.contentType,
        document.filename,
        document.byteSize,
        document.rowCount,
      ],
    );
    return row?.completed_at ?? null;
  }

  /** Fails the report being built; when it failed, or null when it is no longer being built. */
  async fail(tx: Transaction, tenant: Tenant, id: string, failure: string): Promise<Date | null> {
    const [row] = await tx.rows<{ completed_at: Date }>(
      `UPDATE reports SET status = 'failed', failure = $4, completed_at = now()
        WHERE id = $1 AND organization_id = $2 AND mode = $3 AND status = 'processing'
        RETURNING completed_at`,
      [id, tenant.organizationId, tenant.mode, failure],
    );
    return row?.completed_at ?? null;
  }

  /** Deletes up to `limit` expired reports of every tenant (retention); how many went. */
  async deleteExpiredAcrossTenants(tx: Transaction, limit: number): Promise<number> {
    const expired = await tx.rows(
      `DELETE FROM reports WHERE id IN (
          SELECT id FROM reports WHERE expires_at <= now() LIMIT $1) RETURNING id`,
      [limit],
    );
    return expired.length;
  }

  /** Up to `limit` reports of every tenant still queued since before `before`: their job was lost. */
  async queuedBeforeAcrossTenants(
    before: Date,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<QueuedReport[]> {
    const rows = await on.rows<{ id: string; organization_id: string; mode: Mode }>(
      `SELECT id, organization_id, mode FROM reports
        WHERE status = 'queued' AND created_at < $1 LIMIT $2`,
      [before, limit],
    );
    return rows.map((row) => ({ id: row.id, organizationId: row.organization_id, mode: row.mode }));
  }

  /** Every unexpired report of every tenant still queued or being built, a page at a time (recovery after Redis lost its data). */
  unfinishedAcrossTenants(): UnfinishedPages<QueuedReport & UnfinishedWork> {
    const pages = unfinishedWorkPages<UnfinishedWork & { organization_id: string; mode: Mode }>(
      this.sql,
      {
        columns: 'id, organization_id, mode',
        table: 'reports',
        where: `status IN ('queued', 'processing') AND expires_at > now()`,
        orderBy: 'created_at',
      },
    );
    return async (after, pageSize) =>
      (await pages(after, pageSize)).map((row) => ({
        id: row.id,
        organizationId: row.organization_id,
        mode: row.mode,
        position: row.position,
      }));
  }

  /**
   * Makes `tx` read one snapshot, and only read: a build's summary and its
   * rows are then the same cases however long the build takes. The first
   * statement of the transaction.
   */
  async readSnapshot(tx: Transaction): Promise<void> {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  // ---------------------------------------------------------------- documents (large objects)
  // Each its own statement on the pool, outside any unit of work: a build writes its document
  // while its read-only snapshot is open, and a download reads it as the response is sent.

  /** A new, empty large object for a document; its oid. */
  async createDocument(): Promise<number> {
    const [row] = await this.sql.rows<{ oid: number }>('SELECT lo_create(0) AS oid');
    return row!.oid;
  }

  /** Writes `piece` into the document at `offset`. */
  async writeDocument(oid: number, offset: number, piece: Buffer): Promise<void> {
    await this.sql.query('SELECT lo_put($1, $2, $3)', [oid, offset, piece]);
  }

  /** `length` bytes of the document from `offset`. */
  async readDocument(oid: number, offset: number, length: number): Promise<Buffer> {
    const [row] = await this.sql.rows<{ data: Buffer }>('SELECT lo_get($1, $2, $3) AS data', [
      oid,
      offset,
      length,
    ]);
    return row!.data;
  }

  /** Deletes a document no report keeps. */
  async unlinkDocument(oid: number): Promise<void> {
    await this.sql.query('SELECT lo_unlink($1)', [oid]);
  }
}
