import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError, parsePublicId, type Tenant } from '#common';
import {
  keysetPage,
  readEntities,
  SqlConditions,
  tenantScope,
  type KeysetPage,
  type PageRequest,
} from '#database';
import { EventEntity } from './event.entity.js';

export interface EventFilter {
  type?: string | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
}

/**
 * Reading the event log of one organisation and mode. Test deliveries'
 * sample events stay out of it.
 */
@Injectable()
export class EventReader {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async page(
    tenant: Tenant,
    filter: EventFilter,
    request: PageRequest,
  ): Promise<KeysetPage<EventEntity>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    where.and(`mode = ${where.param(tenant.mode)}`);
    where.and('target_webhook_id IS NULL');
    if (filter.type !== undefined) where.and(`type = ${where.param(filter.type)}`);
    if (filter.createdAfter !== undefined) {
      where.and(`created_at >= ${where.param(filter.createdAfter)}`);
    }
    if (filter.createdBefore !== undefined) {
      where.and(`created_at < ${where.param(filter.createdBefore)}`);
    }
    return keysetPage(
      (text, parameters) => this.dataSource.query(text, parameters),
      {
        table: 'events',
        where,
        scope: tenantScope(tenant),
        readRows: readEntities(this.dataSource, EventEntity),
      },
      request,
    );
  }

  /** An event by its stored id, whatever its tenant (the worker's dispatch); null once retention took it. */
  async byId(id: string): Promise<EventEntity | null> {
    return this.dataSource.getRepository(EventEntity).findOneBy({ id });
  }

  async get(tenant: Tenant, publicId: string): Promise<EventEntity> {
    const id = parsePublicId('event', publicId);
    const event =
      id === null
        ? null
        : await this.dataSource.getRepository(EventEntity).findOneBy({
            id,
            organizationId: tenant.organizationId,
            mode: tenant.mode,
          });
    if (!event || event.targetWebhookId !== null) throw AppError.notFound('event', publicId);
    return event;
  }
}
