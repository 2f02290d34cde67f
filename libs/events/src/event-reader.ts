import { Injectable } from '@nestjs/common';
import { AppError, parsePublicId, type Tenant } from '#common';
import type { KeysetPage, PageRequest } from '#database';
import type { EventEntity } from './event.entity.js';
import { EventsRepository, type EventFilter } from './events.repository.js';
import { isInternalEvent } from './internal-events.js';

export type { EventFilter } from './events.repository.js';

/**
 * Reading the event log of one organisation and mode. Test deliveries'
 * sample events and internal events stay out of it.
 */
@Injectable()
export class EventReader {
  constructor(private readonly events: EventsRepository) {}

  page(
    tenant: Tenant,
    filter: EventFilter,
    request: PageRequest,
  ): Promise<KeysetPage<EventEntity>> {
    return this.events.page(tenant, filter, request);
  }

  /** An event by its stored id, whatever its tenant (the worker's dispatch); null once retention took it. */
  byId(id: string): Promise<EventEntity | null> {
    return this.events.findAcrossTenants(id);
  }

  async get(tenant: Tenant, publicId: string): Promise<EventEntity> {
    const id = parsePublicId('event', publicId);
    const event = id === null ? null : await this.events.find(tenant, id);
    if (!event || event.targetWebhookId !== null || isInternalEvent(event.type)) {
      throw AppError.notFound('event', publicId);
    }
    return event;
  }
}
