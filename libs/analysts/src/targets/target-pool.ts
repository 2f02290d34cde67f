import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import type { Queryable } from '#database';
import type { TargetEntity } from './target.entity.js';
import type { PoolTarget, Target, TargetPhotoContent } from './target.js';
import { TargetPhotosRepository } from './target-photos.repository.js';
import { poolTargetOf, targetOf } from './target-shapes.js';
import { TargetsRepository } from './targets.repository.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organisation's target pool as judging reads it: decoys drawn at random
 * (each target of the tenant equally likely, none twice), how many could be
 * drawn, and one target by its id. Ids are the stored UUIDs; everything is per
 * tenant (organisation and mode).
 */
@Injectable()
export class TargetPool {
  constructor(
    private readonly targets: TargetsRepository,
    private readonly photos: TargetPhotosRepository,
  ) {}

  /**
   * Up to `count` targets of the tenant's pool, drawn uniformly at random
   * without replacement, never `excludeTargetId`; fewer when the pool holds
   * fewer. Runs on `on` so it can be part of the caller's transaction.
   */
  async drawDecoys(
    on: Queryable,
    tenant: Tenant,
    count: number,
    excludeTargetId: string | null,
  ): Promise<PoolTarget[]> {
    if (count <= 0) return [];
    const drawn = await this.targets.drawAtRandom(tenant, count, uuidOrNull(excludeTargetId), on);
    return (await this.withPhotos(drawn, on)).map(poolTargetOf);
  }

  /** How many targets of the tenant's pool could be drawn, not counting `excludeTargetId`. */
  count(tenant: Tenant, excludeTargetId: string | null): Promise<number> {
    return this.targets.count(tenant, uuidOrNull(excludeTargetId));
  }

  /** Whether the tenant's pool holds the target (its UUID). */
  async contains(tenant: Tenant, targetId: string): Promise<boolean> {
    return UUID.test(targetId) && (await this.targets.exists(tenant, targetId));
  }

  /** One target of the tenant's pool by its UUID, or null (another tenant's is null too). */
  async get(tenant: Tenant, targetId: string): Promise<PoolTarget | null> {
    if (!UUID.test(targetId)) return null;
    const found = await this.targets.find(tenant, targetId);
    if (!found) return null;
    const [target] = await this.withPhotos([found]);
    return poolTargetOf(target!);
  }

  /**
   * The stored bytes of a fetched photo of one of the tenant's targets, by the
   * photo's UUID (for serving a candidate's photo to its judge); null when there
   * is none, it failed, or it is another tenant's.
   */
  async photo(tenant: Tenant, photoId: string): Promise<TargetPhotoContent | null> {
    if (!UUID.test(photoId)) return null;
    const stored = await this.photos.findContent(tenant, null, photoId);
    if (!stored || stored.bytes === null || stored.contentType === null) return null;
    return { contentType: stored.contentType, bytes: stored.bytes };
  }

  /** The targets with their photos (one more statement), in the order given. */
  async withPhotos(targets: readonly TargetEntity[], on?: Queryable): Promise<Target[]> {
    const photos = await this.photos.ofTargets(
      targets.map((target) => target.id),
      on,
    );
    return targets.map((target) => targetOf(target, photos.get(target.id) ?? []));
  }
}

/** An id that is not a UUID names no target: excluding it excludes nothing. */
function uuidOrNull(id: string | null): string | null {
  return id !== null && UUID.test(id) ? id : null;
}
