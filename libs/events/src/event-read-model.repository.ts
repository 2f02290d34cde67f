import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable } from '#database';
import { announcedEvent } from './events.repository.js';

/** An event as an activity list shows it: what happened, and when. */
export interface RecentEvent {
  id: string;
  type: string;
  createdAt: Date;
}

/**
 * What other libs read of `events` for dashboards (a read model: the
 * latest activity, never the payloads), on the replica the caller passes.
 */
@Injectable()
export class EventReadModelRepository {
  constructor(private readonly sql: Sql) {}

  /** The tenant's latest `limit` events, newest first (internal ones, which announce nothing, left out). */
  async recent(tenant: Tenant, limit: number, on: Queryable = this.sql): Promise<RecentEvent[]> {
    const rows = await on.rows<{ id: string; type: string; created_at: Date }>(
      `
SELECT id, type, created_at FROM events
 WHERE organization_id = $1 AND mode = $2 AND ${announcedEvent()}
 ORDER BY created_at DESC, id DESC LIMIT $3`,
      [tenant.organizationId, tenant.mode, limit],
    );
    return rows.map((row) => ({ id: row.id, type: row.type, createdAt: row.created_at }));
  }
}
