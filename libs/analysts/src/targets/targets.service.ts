import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, type KeysetPage, type PageRequest } from '#database';
import { OutboundFetcher } from '#outbound';
import { checkNewTarget } from './target-input.js';
import { readTargetPhoto, unfetchedPhoto } from './target-photo-reading.js';
import { TargetPhotosRepository } from './target-photos.repository.js';
import { TargetPool } from './target-pool.js';
import {
  MAX_TARGET_PHOTO_BYTES,
  MAX_TARGET_PHOTO_FETCH_MS,
  type NewTargetInput,
  type ReadTargetPhoto,
  type Target,
  type TargetPhotoContent,
} from './target.js';
import type { TargetPhotoEntity } from './target-photo.entity.js';
import { TargetsRepository } from './targets.repository.js';

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
    private readonly targets: TargetsRepository,
    private readonly photos: TargetPhotosRepository,
    private readonly pool: TargetPool,
    private readonly fetcher: OutboundFetcher,
    private readonly settings: AppSettings,
  ) {}

  async create(tenant: Tenant, input: NewTargetInput): Promise<Target> {
    const checked = checkNewTarget(input);
    const read = await Promise.all(checked.photoUrls.map((url) => this.fetchPhoto(url)));
    const uuid = newUuid();
    const createdAt = new Date();
    const photos: TargetPhotoEntity[] = read.map((photo, position) => ({
      id: newUuid(),
      targetId: uuid,
      position,
      sourceUrl: checked.photoUrls[position]!,
      status: photo.status,
      contentType: photo.contentType,
      bytes: photo.bytes,
      width: photo.width,
      height: photo.height,
      failure: photo.failure,
      createdAt,
    }));
    await this.sql.transaction(async (tx) => {
      await this.targets.insert(tx, tenant, {
        id: uuid,
        organizationId: tenant.organizationId,
        mode: tenant.mode,
        description: checked.description,
        descriptors: checked.descriptors,
        latitude: checked.coordinates?.latitude ?? null,
        longitude: checked.coordinates?.longitude ?? null,
        createdAt,
        updatedAt: createdAt,
      });
      await this.photos.insertAll(tx, photos);
    });
    return {
      id: uuid,
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      description: checked.description,
      descriptors: checked.descriptors,
      latitude: checked.coordinates?.latitude ?? null,
      longitude: checked.coordinates?.longitude ?? null,
      photos: photos.map(
        ({ targetId: _targetId, bytes: _bytes, createdAt: _createdAt, ...photo }) => photo,
      ),
      createdAt,
    };
  }

  async get(tenant: Tenant, publicId: string): Promise<Target> {
    const uuid = parsePublicId('target', publicId);
    if (uuid === null) throw AppError.notFound('target', publicId);
    const found = await this.targets.find(tenant, uuid);
    if (!found) throw AppError.notFound('target', publicId);
    const [target] = await this.pool.withPhotos([found]);
    return target!;
  }

  /** A keyset page of the tenant's targets, newest first, with their photos. */
  async page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<Target>> {
    return this.targets.page(tenant, request, (targets) => this.pool.withPhotos(targets));
  }

  /** Deletes a target and its photos. Judging tasks that drew it keep what they showed. */
  async delete(tenant: Tenant, publicId: string): Promise<void> {
    const uuid = parsePublicId('target', publicId);
    if (uuid === null) throw AppError.notFound('target', publicId);
    const deleted = await this.sql.transaction((tx) => this.targets.delete(tx, tenant, uuid));
    if (!deleted) throw AppError.notFound('target', publicId);
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
    const row = await this.photos.findContent(tenant, targetId, photoId);
    if (!row) throw AppError.notFound('photo', photoPublicId);
    if (row.bytes === null || row.contentType === null) {
      throw new AppError('NOT_FOUND', `Photo ${photoPublicId} was not fetched: nothing is stored`, {
        field: 'photo_id',
        issue: 'the photo failed when the target was added (see its `failure`)',
      });
    }
    return { contentType: row.contentType, bytes: row.bytes };
  }

  private async fetchPhoto(url: string): Promise<ReadTargetPhoto> {
    const fetched = await this.fetcher.fetch(url, {
      maxBytes: Math.min(this.settings.outbound.materialMaxBytes, MAX_TARGET_PHOTO_BYTES),
      timeoutMs: Math.min(this.settings.outbound.materialTimeoutMs, MAX_TARGET_PHOTO_FETCH_MS),
    });
    if (!fetched.ok) return unfetchedPhoto(fetched.error);
    return readTargetPhoto(fetched.bytes, fetched.declaredType);
  }
}
