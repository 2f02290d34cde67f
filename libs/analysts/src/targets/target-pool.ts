import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type SqlExecutor } from '#database';
import type { PoolTarget, TargetPhotoContent, TargetPhotoType } from './target.js';
import {
  selectRows,
  TARGET_COLUMNS,
  toPoolTarget,
  withPhotos,
  type TargetRow,
} from './target-rows.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organisation's target pool as judging reads it: decoys drawn at random
 * (each target of the tenant equally likely, none twice), how many could be
 * drawn, and one target by its id. Ids are the stored UUIDs; everything is per
 * tenant (organisation and mode).
 */
@Injectable()
export class TargetPool {
  constructor(private readonly sql: Sql) {}

  /**
   * Up to `count` targets of the tenant's pool, drawn uniformly at random
   * without replacement, never `excludeTargetId`; fewer when the pool holds
   * fewer. Runs on `executor` so it can be part of the caller's transaction.
   */
  async drawDecoys(
    executor: SqlExecutor,
    tenant: Tenant,
    count: number,
    excludeTargetId: string | null,
  ): Promise<PoolTarget[]> {
    if (count <= 0) return [];
    const rows = await selectRows<TargetRow>(
      executor,
      `SELECT ${TARGET_COLUMNS} FROM targets
        WHERE organization_id = $1 AND mode = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)
        ORDER BY random() LIMIT $4`,
      [tenant.organizationId, tenant.mode, uuidOrNull(excludeTargetId), count],
    );
    return (await withPhotos(executor, rows)).map(toPoolTarget);
  }

  /** How many targets of the tenant's pool could be drawn, not counting `excludeTargetId`. */
  async count(tenant: Tenant, excludeTargetId: string | null): Promise<number> {
    const [{ count }] = (await this.sql.rows<{ count: number }>(
      `SELECT count(*)::int AS count FROM targets
        WHERE organization_id = $1 AND mode = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)`,
      [tenant.organizationId, tenant.mode, uuidOrNull(excludeTargetId)],
    )) as [{ count: number }];
    return count;
  }

  /** One target of the tenant's pool by its UUID, or null (another tenant's is null too). */
  async get(tenant: Tenant, targetId: string): Promise<PoolTarget | null> {
    if (!UUID.test(targetId)) return null;
    const rows = await this.sql.rows<TargetRow>(
      `SELECT ${TARGET_COLUMNS} FROM targets WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [targetId, tenant.organizationId, tenant.mode],
    );
    const [target] = await withPhotos({ query: (t, p) => this.sql.rows(t, p) }, rows);
    return target ? toPoolTarget(target) : null;
  }

  /**
   * The stored bytes of a fetched photo of one of the tenant's targets, by the
   * photo's UUID (for serving a candidate's photo to its judge); null when there
   * is none, it failed, or it is another tenant's.
   */
  async photo(tenant: Tenant, photoId: string): Promise<TargetPhotoContent | null> {
    if (!UUID.test(photoId)) return null;
    const [row] = await this.sql.rows<{
      content_type: TargetPhotoType | null;
      bytes: Buffer | null;
    }>(
      `SELECT p.content_type, p.bytes FROM target_photos p JOIN targets t ON t.id = p.target_id
        WHERE p.id = $1 AND t.organization_id = $2 AND t.mode = $3`,
      [photoId, tenant.organizationId, tenant.mode],
    );
    if (!row || row.bytes === null || row.content_type === null) return null;
    return { contentType: row.content_type, bytes: row.bytes };
  }
}

/** An id that is not a UUID names no target: excluding it excludes nothing. */
function uuidOrNull(id: string | null): string | null {
  return id !== null && UUID.test(id) ? id : null;
}
