import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import {
  keysetPage,
  Sql,
  tenantConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
} from '#database';
import { OutboundFetcher } from '#outbound';
import { checkNewTarget } from './target-input.js';
import { readTargetPhoto, unfetchedPhoto } from './target-photo-reading.js';
import {
  MAX_TARGET_PHOTO_BYTES,
  MAX_TARGET_PHOTO_FETCH_MS,
  type NewTargetInput,
  type ReadTargetPhoto,
  type Target,
  type TargetPhoto,
  type TargetPhotoContent,
  type TargetPhotoType,
} from './target.js';
import { TARGET_COLUMNS, withPhotos, type TargetRow } from './target-rows.js';

/**
 * The organisation's target pool (issue 18), per tenant: targets are added
 * with their photos fetched at once under the outbound destination policy
 * (https only, no private addresses, bounded in size and time), read, listed
 * newest first, and deleted. Photos are fetched in parallel while the
 * request waits, each bounded by MAX_TARGET_PHOTO_BYTES and
 * MAX_TARGET_PHOTO_FETCH_MS (and never more than REFERENCE_MATERIAL_MAX_BYTES
 * and REFERENCE_MATERIAL_TIMEOUT_MS). A photo that cannot be fetched or is not a PNG,
 * JPEG, WebP or GIF by its content is kept as failed with the reason; it
 * never fails the target.
 */
@Injectable()
export class TargetsService {
  constructor(
    private readonly sql: Sql,
    private readonly fetcher: OutboundFetcher,
    private readonly settings: AppSettings,
  ) {}

  async create(tenant: Tenant, input: NewTargetInput): Promise<Target> {
    const checked = checkNewTarget(input);
    const read = await Promise.all(checked.photoUrls.map((url) => this.fetchPhoto(url)));
    const uuid = newUuid();
    const createdAt = new Date();
    const photos: (TargetPhoto & { bytes: Buffer | null })[] = read.map((photo, position) => ({
      id: newUuid(),
      position,
      sourceUrl: checked.photoUrls[position]!,
      status: photo.status,
      contentType: photo.contentType,
      width: photo.width,
      height: photo.height,
      failure: photo.failure,
      bytes: photo.bytes,
    }));
    await this.sql.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO targets (id, organization_id, mode, description, descriptors, latitude, longitude, created_at, updated_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
        [
          uuid,
          tenant.organizationId,
          tenant.mode,
          checked.description,
          checked.descriptors,
          checked.coordinates?.latitude ?? null,
          checked.coordinates?.longitude ?? null,
          createdAt,
        ],
      );
      for (const photo of photos) {
        await tx.query(
          `INSERT INTO target_photos (id, target_id, position, source_url, status, content_type, bytes, width, height, failure, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [
            photo.id,
            uuid,
            photo.position,
            photo.sourceUrl,
            photo.status,
            photo.contentType,
            photo.bytes,
            photo.width,
            photo.height,
            photo.failure,
            createdAt,
          ],
        );
      }
    });
    return {
      id: uuid,
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      description: checked.description,
      descriptors: checked.descriptors,
      latitude: checked.coordinates?.latitude ?? null,
      longitude: checked.coordinates?.longitude ?? null,
      photos: photos.map(({ bytes: _bytes, ...photo }) => photo),
      createdAt,
    };
  }

  async get(tenant: Tenant, publicId: string): Promise<Target> {
    const uuid = parsePublicId('target', publicId);
    if (uuid === null) throw AppError.notFound('target', publicId);
    const rows = await this.sql.rows<TargetRow>(
      `SELECT ${TARGET_COLUMNS} FROM targets WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [uuid, tenant.organizationId, tenant.mode],
    );
    const [target] = await withPhotos(this.executor(), rows);
    if (!target) throw AppError.notFound('target', publicId);
    return target;
  }

  /** A keyset page of the tenant's targets, newest first, with their photos. */
  async page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<Target>> {
    return keysetPage(
      (text, parameters) => this.sql.rows(text, parameters),
      {
        table: 'targets',
        where: tenantConditions(tenant),
        scope: tenantScope(tenant),
        readRows: async (idsSql, parameters) => {
          const rows = await this.sql.rows<TargetRow>(
            `SELECT ${TARGET_COLUMNS} FROM targets WHERE id IN (${idsSql})
              ORDER BY created_at DESC, id DESC`,
            parameters,
          );
          return withPhotos(this.executor(), rows);
        },
      },
      request,
    );
  }

  /** Deletes a target and its photos. Judging tasks that drew it keep what they showed. */
  async delete(tenant: Tenant, publicId: string): Promise<void> {
    const uuid = parsePublicId('target', publicId);
    if (uuid === null) throw AppError.notFound('target', publicId);
    const deleted = await this.sql.rows<{ id: string }>(
      `DELETE FROM targets WHERE id = $1 AND organization_id = $2 AND mode = $3 RETURNING id`,
      [uuid, tenant.organizationId, tenant.mode],
    );
    if (deleted.length === 0) throw AppError.notFound('target', publicId);
  }

  /** The stored bytes of a fetched photo of the tenant's target; 404 for a failed one. */
  async photo(
    tenant: Tenant,
    targetPublicId: string,
    photoPublicId: string,
  ): Promise<TargetPhotoContent> {
    const targetId = parsePublicId('target', targetPublicId);
    const photoId = parsePublicId('targetPhoto', photoPublicId);
    if (targetId === null) throw AppError.notFound('target', targetPublicId);
    if (photoId === null) throw AppError.notFound('photo', photoPublicId);
    const [row] = await this.sql.rows<{
      content_type: TargetPhotoType | null;
      bytes: Buffer | null;
    }>(
      `SELECT p.content_type, p.bytes FROM target_photos p JOIN targets t ON t.id = p.target_id
        WHERE p.id = $1 AND t.id = $2 AND t.organization_id = $3 AND t.mode = $4`,
      [photoId, targetId, tenant.organizationId, tenant.mode],
    );
    if (!row) throw AppError.notFound('photo', photoPublicId);
    if (row.bytes === null || row.content_type === null) {
      throw new AppError('NOT_FOUND', `Photo ${photoPublicId} was not fetched: nothing is stored`, {
        field: 'photo_id',
        issue: 'the photo failed when the target was added (see its `failure`)',
      });
    }
    return { contentType: row.content_type, bytes: row.bytes };
  }

  private async fetchPhoto(url: string): Promise<ReadTargetPhoto> {
    const fetched = await this.fetcher.fetch(url, {
      maxBytes: Math.min(this.settings.outbound.materialMaxBytes, MAX_TARGET_PHOTO_BYTES),
      timeoutMs: Math.min(this.settings.outbound.materialTimeoutMs, MAX_TARGET_PHOTO_FETCH_MS),
    });
    if (!fetched.ok) return unfetchedPhoto(fetched.error);
    return readTargetPhoto(fetched.bytes, fetched.declaredType);
  }

  private executor() {
    return { query: (text: string, parameters: unknown[]) => this.sql.rows(text, parameters) };
  }
}
