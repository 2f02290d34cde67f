import { Injectable } from '@nestjs/common';
import type { Principal, Tenant } from '#common';
import type { DowsingRequest } from '#engines';
import { WorkLifecycle, type BatchEntity } from '#work';
import type { DowsingPeople } from './analyst-dowsing.js';
import { DowsingKind, type NewDowsingQuery } from './dowsing-kind.js';
import { DowsingQueriesRepository } from './dowsing-queries.repository.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

export type { NewDowsingQuery } from './dowsing-kind.js';

/**
 * Dowsing queries as API callers see them (DowsingKind says how they are
 * created: the simulated engine answers within the request; people answer
 * later).
 */
@Injectable()
export class DowsingService {
  constructor(
    private readonly queries: DowsingQueriesRepository,
    private readonly lifecycle: WorkLifecycle,
    private readonly kind: DowsingKind,
  ) {}

  async create(
    tenant: Tenant,
    request: DowsingRequest,
    requestId: string | null,
    people?: DowsingPeople,
  ): Promise<DowsingQueryEntity> {
    const { created } = await this.lifecycle.create(
      this.kind,
      tenant,
      [{ request, people }],
      requestId,
      false,
    );
    return created[0]!;
  }

  /**
   * Up to 100 queries of any variant in one transaction: all of them or none.
   * Each item is done by the engine it asks for: items of the `analyst`
   * engine are tasked one by one, each with its own tasking fields.
   */
  async createBatch(
    tenant: Tenant,
    requests: readonly (DowsingRequest | NewDowsingQuery)[],
    requestId: string | null,
  ): Promise<{ batch: BatchEntity; queries: DowsingQueryEntity[] }> {
    const { batch, created } = await this.lifecycle.create(
      this.kind,
      tenant,
      requests.map((item): NewDowsingQuery => ('request' in item ? item : { request: item })),
      requestId,
      true,
    );
    return { batch: batch!, queries: created };
  }

  /** The query with that public id in the caller's organisation and mode, else NOT_FOUND. */
  get(tenant: Tenant, publicId: string): Promise<DowsingQueryEntity> {
    return this.lifecycle.find(this.kind, tenant, publicId);
  }

  /** The queries of a batch (found by BatchRecords, in the batch's tenant), in the order of the request. */
  batchItems(batch: BatchEntity): Promise<DowsingQueryEntity[]> {
    return this.queries.batchItems(batch, batch.id);
  }

  /** Deletes a query with its readings, its events redacted and the deletion audited (WorkLifecycle.delete). */
  delete(principal: Principal, publicId: string, requestId: string | null): Promise<void> {
    return this.lifecycle.delete(this.kind, principal, publicId, requestId);
  }
}
