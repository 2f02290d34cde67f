import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import type { DowsingRequest } from '#engines';
import { WorkLifecycle, WorkService, type BatchEntity } from '#work';
import { DowsingKind, type NewDowsingQuery } from './dowsing-kind.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';

/**
 * Dowsing queries as API callers see them (WorkService; DowsingKind says
 * how they are created: the simulated engine answers within the request,
 * people later).
 */
@Injectable()
export class DowsingService extends WorkService<DowsingQueryEntity, NewDowsingQuery> {
  constructor(lifecycle: WorkLifecycle, kind: DowsingKind) {
    super(lifecycle, kind);
  }

  /**
   * Up to 100 queries of any variant in one transaction: all of them or
   * none. Each item is done by the engine it asks for: items of the
   * `analyst` engine are tasked one by one, each with its own tasking fields.
   */
  override createBatch(
    tenant: Tenant,
    requests: readonly (DowsingRequest | NewDowsingQuery)[],
    requestId: string | null,
  ): Promise<{ batch: BatchEntity; created: DowsingQueryEntity[] }> {
    const items = requests.map((item) => ('request' in item ? item : { request: item }));
    return super.createBatch(tenant, items, requestId);
  }
}
