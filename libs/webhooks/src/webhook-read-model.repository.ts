import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable } from '#database';

/** A webhook of the tenant with its deliveries of the last 24 hours by state. */
export interface WebhookDeliveryHealth {
  webhookId: string;
  url: string;
  status: string;
  succeeded: number;
  failed: number;
  pending: number;
}

/**
 * What other libs read of `webhooks` and `webhook_deliveries` for
 * dashboards (a read model: counts, never the deliveries themselves), on the
 * replica the caller passes.
 */
@Injectable()
export class WebhookReadModelRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Each webhook of the tenant, oldest first, with its deliveries of the 24
   * hours up to `now` by state (the (webhook, created_at) index).
   */
  async deliveryHealth(
    tenant: Tenant,
    now: Date,
    on: Queryable = this.sql,
  ): Promise<WebhookDeliveryHealth[]> {
    const rows = await on.rows<Record<string, string>>(
      `
SELECT w.id, w.url, w.status,
       count(d.id) FILTER (WHERE d.state = 'succeeded') AS succeeded,
       count(d.id) FILTER (WHERE d.state = 'failed') AS failed,
       count(d.id) FILTER (WHERE d.state = 'pending') AS pending
  FROM webhooks w
  LEFT JOIN webhook_deliveries d
    ON d.webhook_id = w.id AND d.created_at >= $3::timestamptz - interval '24 hours'
 WHERE w.organization_id = $1 AND w.mode = $2
 GROUP BY w.id, w.url, w.status, w.created_at
 ORDER BY w.created_at, w.id`,
      [tenant.organizationId, tenant.mode, now],
    );
    return rows.map((row) => ({
      webhookId: row.id!,
      url: row.url!,
      status: row.status!,
      succeeded: Number(row.succeeded),
      failed: Number(row.failed),
      pending: Number(row.pending),
    }));
  }
}
