import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { EventReader, toEnvelope } from '#events';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import { EventDto, EventListQueryDto, EventListV2Dto } from './event-v2.dto.js';

@ApiTags('Events (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@Controller({ path: 'events', version: '2' })
export class EventsV2Controller {
  constructor(private readonly events: EventReader) {}

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: 'List events, newest first',
    description:
      'Every event of your organisation and mode, as webhooks receive them, kept for EVENT_RETENTION_DAYS (default 30). `pending_webhooks` counts the endpoints that have not yet acknowledged it.',
  })
  @ApiOkResponse({ type: EventListV2Dto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: EventListQueryDto,
  ): Promise<EventListV2Dto> {
    const page = await this.events.page(
      principal,
      {
        type: query.type,
        createdAfter: query.created_after === undefined ? undefined : new Date(query.created_after),
        createdBefore:
          query.created_before === undefined ? undefined : new Date(query.created_before),
      },
      pageRequest('event', query),
    );
    return v2Page('event', page, query.per_page, toEnvelope);
  }

  @Get(':event_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: 'Read one event' })
  @ResourceParam('event_id', 'evt_01jh2x7v4ke8rbk3a8y0v0d7qz', 'event')
  @ApiOkResponse({ type: EventDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('event_id') id: string,
  ): Promise<EventDto> {
    return toEnvelope(await this.events.get(principal, id));
  }
}
