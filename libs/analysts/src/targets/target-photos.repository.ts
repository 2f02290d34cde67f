import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { rowMapping, Sql, type Queryable, type Transaction } from '#database';
import type { TargetPhotoEntity } from './target-photo.entity.js';
import type { TargetPhoto, TargetPhotoStatus, TargetPhotoType } from './target.js';

const PHOTO = rowMapping<TargetPhotoEntity, PhotoColumn>('target_photos', {
  id: 'id',
  target_id: 'targetId',
  position: 'position',
  source_url: 'sourceUrl',
  status: 'status',
  content_type: 'contentType',
  bytes: 'bytes',
  width: 'width',
  height: 'height',
  failure: 'failure',
  created_at: 'createdAt',
});

type PhotoColumn =
  | 'id'
  | 'target_id'
  | 'position'
  | 'source_url'
  | 'status'
  | 'content_type'
  | 'bytes'
  | 'width'
  | 'height'
  | 'failure'
  | 'created_at';

/** What is read of a photo but its bytes, whose size only serving them justifies. */
const LISTED_COLUMNS =
  'id, target_id, position, source_url, status, content_type, width, height, failure';

interface ListedRow {
  id: string;
  target_id: string;
  position: number;
  source_url: string;
  status: TargetPhotoStatus;
  content_type: TargetPhotoType | null;
  width: number | null;
  height: number | null;
  failure: string | null;
}

/** A stored photo's type and bytes; both null when it failed. */
export interface StoredPhoto {
  contentType: TargetPhotoType | null;
  bytes: Buffer | null;
}

function photoOf(row: ListedRow): TargetPhoto {
  return {
    id: row.id,
    position: row.position,
    sourceUrl: row.source_url,
    status: row.status,
    contentType: row.content_type,
    width: row.width,
    height: row.height,
    failure: row.failure,
  };
}

/**
 * The `target_photos` table: a target's photos, in order, with the bytes of
 * those fetched. The table holds no tenant of its own: reads by a photo id
 * alone reach the tenant through the target.
 */
@Injectable()
export class TargetPhotosRepository {
  constructor(private readonly sql: Sql) {}

  async insertAll(tx: Transaction, photos: readonly TargetPhotoEntity[]): Promise<void> {
    for (const photo of photos) await tx.query(PHOTO.insert, PHOTO.toRow(photo));
  }

  /** The photos of these targets without their bytes, by target id, each target's in order. */
  async ofTargets(
    targetIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<Map<string, TargetPhoto[]>> {
    const byTarget = new Map<string, TargetPhoto[]>();
    if (targetIds.length === 0) return byTarget;
    const rows = await on.rows<ListedRow>(
      `SELECT ${LISTED_COLUMNS} FROM target_photos WHERE target_id = ANY($1::uuid[])
        ORDER BY target_id, position`,
      [targetIds],
    );
    for (const row of rows) {
      const list = byTarget.get(row.target_id) ?? [];
      list.push(photoOf(row));
      byTarget.set(row.target_id, list);
    }
    return byTarget;
  }

  /** The stored types of these photos (null: failed), by photo id. */
  async typesOf(
    photoIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<Map<string, TargetPhotoType | null>> {
    const rows = await on.rows<{ id: string; content_type: TargetPhotoType | null }>(
      `SELECT id, content_type FROM target_photos WHERE id = ANY ($1::uuid[])`,
      [photoIds],
    );
    return new Map(rows.map((row) => [row.id, row.content_type]));
  }

  /** A photo of one of the tenant's targets (`targetId`, else any); null when there is none. */
  async findContent(
    tenant: Tenant,
    targetId: string | null,
    photoId: string,
    on: Queryable = this.sql,
  ): Promise<StoredPhoto | null> {
    const [row] =
      targetId === null
        ? await on.rows<{ content_type: TargetPhotoType | null; bytes: Buffer | null }>(
            `SELECT p.content_type, p.bytes FROM target_photos p JOIN targets t ON t.id = p.target_id
              WHERE p.id = $1 AND t.organization_id = $2 AND t.mode = $3`,
            [photoId, tenant.organizationId, tenant.mode],
          )
        : await on.rows<{ content_type: TargetPhotoType | null; bytes: Buffer | null }>(
            `SELECT p.content_type, p.bytes FROM target_photos p JOIN targets t ON t.id = p.target_id
              WHERE p.id = $1 AND t.id = $2 AND t.organization_id = $3 AND t.mode = $4`,
            [photoId, targetId, tenant.organizationId, tenant.mode],
          );
    return row ? { contentType: row.content_type, bytes: row.bytes } : null;
  }
}
