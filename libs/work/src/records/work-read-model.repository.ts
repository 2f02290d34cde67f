import type { Tenant } from '#common';
import {
  createdPerDay,
  createdPerStatus,
  type CreatedOnDay,
  type CreatedPerStatus,
  type Queryable,
  type Sql,
} from '#database';

/** A finished piece of work (completed or failed) as performance figures count it. */
export interface FinishedWorkFigures {
  id: string;
  engine: string;
  failed: boolean;
  /** Seconds from creation to completion; null unless completed with a completion time. */
  seconds: number | null;
}

/** What a kind's read model reads of its table. */
export interface WorkReadModelDescription {
  /** The kind's table; its lib names it, never input. */
  table: string;
  /** SELECT expressions for the figures a kind adds to FinishedWorkFigures, after its columns. */
  figures?: string;
}

/** A kind whose running work counts against the plan's concurrent limit. */
export interface LimitedWorkReadModelDescription extends WorkReadModelDescription {
  /** The statuses in which its work holds a place of the limit. */
  running: readonly string[];
}

/**
 * What other libs read of a kind's table for analytics and dashboards (a
 * read model: counts and figures, never the work itself), each read by a
 * tenant index, on the replica the caller passes. A kind's lib extends it
 * with its table's description, so that analytics and the dashboard inject
 * each kind's read model by its own class.
 */
export abstract class WorkReadModelRepository<
  Figures extends FinishedWorkFigures = FinishedWorkFigures,
> {
  private readonly selectNewestFinished: string;

  constructor(
    protected readonly sql: Sql,
    private readonly description: WorkReadModelDescription,
  ) {
    const figures = description.figures ? `, ${description.figures}` : '';
    this.selectNewestFinished = `SELECT id, engine, status = 'failed' AS failed,
              CASE WHEN status = 'completed'
                   THEN extract(epoch FROM completed_at - created_at)::float8 END AS seconds${figures}
         FROM ${description.table}
        WHERE organization_id = $1 AND mode = $2 AND status IN ('completed', 'failed')
        ORDER BY created_at DESC LIMIT $3`;
  }

  /**
   * Per status, the work created in each window up to `now`: read through
   * the (tenant, created_at) index, which includes the status — the last 30
   * days, nothing older.
   */
  createdPerStatus(
    tenant: Tenant,
    now: Date,
    on: Queryable = this.sql,
  ): Promise<CreatedPerStatus[]> {
    return createdPerStatus(on, this.description.table, tenant, now);
  }

  /** Per status, the work created in each 24 hours of the last 30 days up to `now` (same index). */
  createdPerDay(tenant: Tenant, now: Date, on: Queryable = this.sql): Promise<CreatedOnDay[]> {
    return createdPerDay(on, this.description.table, tenant, now);
  }

  /** The newest `limit` finished (completed or failed) work, by the tenant-status-created index. */
  newestFinished(tenant: Tenant, limit: number, on: Queryable = this.sql): Promise<Figures[]> {
    return on.rows<Figures>(this.selectNewestFinished, [tenant.organizationId, tenant.mode, limit]);
  }
}

/** The read model of a kind the plan's concurrent limit counts: it also counts what runs now. */
export abstract class LimitedWorkReadModelRepository<
  Figures extends FinishedWorkFigures = FinishedWorkFigures,
> extends WorkReadModelRepository<Figures> {
  private readonly countRunning: string;

  constructor(sql: Sql, description: LimitedWorkReadModelDescription) {
    super(sql, description);
    // Literal statuses, which the tables' partial status indexes match (a parameter would not).
    const statuses = description.running.map((status) => {
      if (!/^[a-z_]+$/.test(status)) throw new Error(`${description.table}: odd status ${status}`);
      return `'${status}'`;
    });
    this.countRunning = `SELECT count(*) AS running FROM ${description.table}
      WHERE organization_id = $1 AND mode = $2 AND status IN (${statuses.join(', ')})`;
  }

  /** Work holding a place against the plan's concurrent limit now, by the status index. */
  async running(tenant: Tenant, on: Queryable = this.sql): Promise<number> {
    const [row] = await on.rows<{ running: string }>(this.countRunning, [
      tenant.organizationId,
      tenant.mode,
    ]);
    return Number(row!.running);
  }
}
