import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError, parsePublicId, type Tenant } from '#common';
import { EventEntity, keysetPage, tenantScope, type KeysetPage, type PageRequest } from '#database';

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
    const query = this.dataSource
      .getRepository(EventEntity)
      .createQueryBuilder('e')
      .where('e.organization_id = :organizationId AND e.mode = :mode', tenant)
      .andWhere('e.target_webhook_id IS NULL');
    if (filter.type !== undefined) query.andWhere('e.type = :type', { type: filter.type });
    if (filter.createdAfter !== undefined) {
      query.andWhere('e.created_at >= :after', { after: filter.createdAfter });
    }
    if (filter.createdBefore !== undefined) {
      query.andWhere('e.created_at < :before', { before: filter.createdBefore });
    }
    return keysetPage(query, request, tenantScope(tenant));
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
