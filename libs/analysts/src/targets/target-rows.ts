import type { SqlExecutor } from '#database';
import type { PoolTarget, Target, TargetPhoto, TargetPhotoType } from './target.js';

/** The columns of `targets` read back, and of `target_photos` but the bytes. */
export const TARGET_COLUMNS =
  'id, organization_id, mode, description, descriptors, latitude, longitude, created_at';
export const PHOTO_COLUMNS =
  'id, target_id, position, source_url, status, content_type, width, height, failure';

export interface TargetRow {
  id: string;
  organization_id: string;
  mode: string;
  description: string;
  descriptors: string[];
  latitude: number | null;
  longitude: number | null;
  created_at: Date;
}

export interface PhotoRow {
  id: string;
  target_id: string;
  position: number;
  source_url: string;
  status: 'fetched' | 'failed';
  content_type: TargetPhotoType | null;
  width: number | null;
  height: number | null;
  failure: string | null;
}

export function toPhoto(row: PhotoRow): TargetPhoto {
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

export function toTarget(row: TargetRow, photos: PhotoRow[]): Target {
  return {
    id: row.id,
    organizationId: row.organization_id,
    mode: row.mode,
    description: row.description,
    descriptors: row.descriptors,
    latitude: row.latitude,
    longitude: row.longitude,
    photos: photos.map(toPhoto),
    createdAt: row.created_at,
  };
}

export function toPoolTarget(target: Target): PoolTarget {
  return {
    id: target.id,
    description: target.description,
    descriptors: target.descriptors,
    latitude: target.latitude,
    longitude: target.longitude,
    photos: target.photos.map((photo) => ({
      id: photo.id,
      status: photo.status,
      contentType: photo.contentType,
    })),
  };
}

/** Rows of a statement run on a pg client (`{ rows }`) or a TypeORM EntityManager (the rows). */
export async function selectRows<T>(
  executor: SqlExecutor,
  text: string,
  parameters: unknown[],
): Promise<T[]> {
  const result = await executor.query(text, parameters);
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** The targets of these rows with their photos (one more statement), in the rows' order. */
export async function withPhotos(executor: SqlExecutor, rows: TargetRow[]): Promise<Target[]> {
  if (rows.length === 0) return [];
  const photos = await selectRows<PhotoRow>(
    executor,
    `SELECT ${PHOTO_COLUMNS} FROM target_photos WHERE target_id = ANY($1::uuid[])
      ORDER BY target_id, position`,
    [rows.map((row) => row.id)],
  );
  const byTarget = new Map<string, PhotoRow[]>();
  for (const photo of photos) {
    const list = byTarget.get(photo.target_id) ?? [];
    list.push(photo);
    byTarget.set(photo.target_id, list);
  }
  return rows.map((row) => toTarget(row, byTarget.get(row.id) ?? []));
}
