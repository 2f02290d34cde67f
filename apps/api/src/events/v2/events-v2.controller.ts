import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { EventReader, EventTrigger, toEnvelope } from '#events';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import {
  EventDto,
  EventListQueryDto,
  EventListV2Dto,
  TRIGGER_EVENT_EXAMPLES,
  TriggeredEventDto,
  TriggerEventDto,
} from './event-v2.dto.js';

@ApiTags('Events (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'events', version: '2' })
export class EventsV2Controller {
  constructor(
    private readonly events: EventReader,
    private readonly trigger: EventTrigger,
  ) {}

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

  @Post('trigger')
  @HttpCode(202)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @ApiOperation({
    summary: 'Send a sample event (sas events trigger)',
    description:
      'Writes one sample event of `type` (the catalogue\'s sample data, marked `"test": true`; `livemode` is the credential\'s mode) through the outbox like any other event: webhooks subscribed to the type receive it, and so do `sas webhooks listen` sockets and the event log. Nothing runs because of it (a sample `session.created` starts no session). Watch for it on the WebSocket `GET /v2/events/listen` (`?mode=test|live` — the credential\'s own, default `test`; `?events=` comma-separated types or `*`; `Authorization`, `X-API-Key` or `?access_token=`; scope `organizations:read`; the first frame is `listen.ready`, then one frame per event holding exactly the envelope webhooks receive). docs/webhooks.md, "Listening from the CLI", is the protocol\'s reference.',
  })
  @ApiJsonBody(TriggerEventDto, TRIGGER_EVENT_EXAMPLES)
  @ApiAcceptedResponse({ type: TriggeredEventDto })
  async triggerEvent(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: TriggerEventDto,
  ): Promise<TriggeredEventDto> {
    const id = await this.trigger.trigger(principal, body.type, requestId);
    return { id, type: body.type, livemode: principal.mode === 'live' };
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
