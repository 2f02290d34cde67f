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

/** The tenant's deliveries created in one hour of the last 24, by state now. */
export interface WebhookDeliveryHour {
  /** 0 to 23: the hour starting `now` − (24 − hour) hours, so 23 is the last hour. */
  hour: number;
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

  /**
   * The deliveries of every webhook of the tenant in each of the 24 hours up
   * to `now`, by state, oldest first, hours with none included: the rows
   * deliveryHealth counts (one created after `now` falls in the last hour),
   * so the hours sum to its totals.
   */
  async deliveriesPerHour(
    tenant: Tenant,
    now: Date,
    on: Queryable = this.sql,
  ): Promise<WebhookDeliveryHour[]> {
    const rows = await on.rows<Record<string, string | number>>(
      `
SELECT least(23, floor(extract(epoch FROM d.created_at - ($3::timestamptz - interval '24 hours')) / 3600))::int AS hour,
       count(*) FILTER (WHERE d.state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE d.state = 'failed') AS failed,
       count(*) FILTER (WHERE d.state = 'pending') AS pending
  FROM webhooks w
  JOIN webhook_deliveries d
    ON d.webhook_id = w.id AND d.created_at >= $3::timestamptz - interval '24 hours'
 WHERE w.organization_id = $1 AND w.mode = $2
 GROUP BY 1`,
      [tenant.organizationId, tenant.mode, now],
    );
    const byHour = new Map(rows.map((row) => [Number(row.hour), row]));
    return Array.from({ length: 24 }, (_, hour) => {
      const row = byHour.get(hour);
      return {
        hour,
        succeeded: Number(row?.succeeded ?? 0),
        failed: Number(row?.failed ?? 0),
        pending: Number(row?.pending ?? 0),
      };
    });
  }
}
