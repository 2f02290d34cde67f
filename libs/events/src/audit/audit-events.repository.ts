import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import {
  keysetPage,
  rowMapping,
  Sql,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
  type Queryable,
} from '#database';
import type { AuditEventEntity } from './audit-event.entity.js';

type AuditEventColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'action'
  | 'actor_type'
  | 'actor_id'
  | 'target_type'
  | 'target_id'
  | 'ip'
  | 'user_agent'
  | 'request_id'
  | 'changes'
  | 'details'
  | 'created_at';

const AUDIT_EVENT = rowMapping<AuditEventEntity, AuditEventColumn>(
  'audit_events',
  {
    id: 'id',
    organization_id: 'organizationId',
    mode: 'mode',
    action: 'action',
    actor_type: 'actorType',
    actor_id: 'actorId',
    target_type: 'targetType',
    target_id: 'targetId',
    ip: 'ip',
    user_agent: 'userAgent',
    request_id: 'requestId',
    changes: 'changes',
    details: 'details',
    created_at: 'createdAt',
  },
  ['changes', 'details'],
);

/** Which of a tenant's audit events a list shows. */
export interface AuditEventFilter {
  action?: string;
  actorId?: string;
  targetId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** A row as `AuditLog.record` writes it: `changes` and `details` already JSON, secrets gone. */
export interface NewAuditEvent {
  id: string;
  action: string;
  actorType: string;
  actorId: string;
  targetType: string;
  targetId: string;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  changes: string | null;
  details: string | null;
}

/** Rows an export reads per statement: bounded memory whatever the selection's size. */
const EXPORT_BATCH = 500;

/**
 * Reading the audit log, and its retention. Writing is `AuditLog.record`'s
 * alone, in the transaction of the change; nothing here changes a record.
 */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * The one statement that writes the log, in the transaction of the change
   * it records (`AuditLog.record`, a function every lib calls: so it is
   * static, and reads no pool).
   */
  static async insert(on: Queryable, tenant: Tenant, row: NewAuditEvent): Promise<void> {
    await on.query(
      `INSERT INTO audit_events (id, organization_id, mode, action, actor_type, actor_id,
         target_type, target_id, ip, user_agent, request_id, changes, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        row.id,
        tenant.organizationId,
        tenant.mode,
        row.action,
        row.actorType,
        row.actorId,
        row.targetType,
        row.targetId,
        row.ip,
        row.userAgent,
        row.requestId,
        row.changes,
        row.details,
      ],
    );
  }

  /** A keyset page of the tenant's audit events, newest first. */
  page(
    tenant: Tenant,
    filter: AuditEventFilter,
    request: PageRequest,
  ): Promise<KeysetPage<AuditEventEntity>> {
    return keysetPage(
      (text, parameters) => this.sql.rows(text, parameters),
      {
        table: 'audit_events',
        where: conditions(tenant, filter),
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) =>
          (
            await this.sql.rows<Record<AuditEventColumn, unknown>>(
              `SELECT ${AUDIT_EVENT.selectList} FROM audit_events WHERE id IN (${idsSql})
                ORDER BY created_at DESC, id DESC`,
              parameters,
            )
          ).map((row) => AUDIT_EVENT.fromRow(row)),
      },
      request,
    );
  }

  /**
   * Every matching event, newest first, read in batches by keyset so an
   * export of a year's log holds one batch in memory at a time.
   */
  async *all(tenant: Tenant, filter: AuditEventFilter): AsyncGenerator<AuditEventEntity> {
    let after: { createdAt: string; id: string } | null = null;
    for (;;) {
      const where = conditions(tenant, filter);
      if (after !== null) {
        where.and(
          `(created_at, id) < (${where.param(after.createdAt)}::timestamptz, ${where.param(after.id)}::uuid)`,
        );
      }
      const rows = await this.sql.rows<Record<AuditEventColumn, unknown> & { cursor: string }>(
        `SELECT ${AUDIT_EVENT.selectList}, created_at::text AS cursor FROM audit_events
          WHERE ${where.sql} ORDER BY created_at DESC, id DESC LIMIT ${where.param(EXPORT_BATCH)}`,
        where.parameters,
      );
      for (const row of rows) yield AUDIT_EVENT.fromRow(row);
      if (rows.length < EXPORT_BATCH) return;
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.cursor, id: last.id as string };
    }
  }

  /**
   * Deletes up to `limit` events of every tenant older than `days` days,
   * through `sweep_audit_events`: the one door of the append-only table,
   * which the application's role may call but not bypass.
   */
  async sweepAcrossTenants(days: number, limit: number): Promise<number> {
    const [row] = await this.sql.rows<{ deleted: number }>(
      `SELECT sweep_audit_events($1, $2) AS deleted`,
      [days, limit],
    );
    return row!.deleted;
  }
}

function conditions(tenant: Tenant, filter: AuditEventFilter): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  if (filter.action !== undefined) where.and(`action = ${where.param(filter.action)}`);
  if (filter.actorId !== undefined) where.and(`actor_id = ${where.param(filter.actorId)}`);
  if (filter.targetId !== undefined) where.and(`target_id = ${where.param(filter.targetId)}`);
  if (filter.createdAfter !== undefined) {
    where.and(`created_at >= ${where.param(filter.createdAfter)}`);
  }
  if (filter.createdBefore !== undefined) {
    where.and(`created_at < ${where.param(filter.createdBefore)}`);
  }
  return where;
}
