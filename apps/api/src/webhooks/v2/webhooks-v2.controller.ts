import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Scope, toPublicId, type Principal } from '#common';
import { WebhookDeliveriesService, WebhooksService } from '#webhooks';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page, V2ListQueryDto } from '../../http/v2-list.js';
import {
  DeliveryListV2Dto,
  DeliveryListV2QueryDto,
  ReplayQueryDto,
  ReplayResultDto,
  WebhookListV2Dto,
  WebhookSourceAddressesDto,
} from './webhook-v2.dto.js';
import { toDeliveryDto, toWebhookDto } from '../webhook-mapping.js';
import { WEBHOOK_ID_EXAMPLE, WebhooksBaseController } from '../webhooks-base.controller.js';

@ApiTags('Webhooks (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'webhooks', version: '2' })
export class WebhooksV2Controller extends WebhooksBaseController {
  constructor(webhooks: WebhooksService, webhookDeliveries: WebhookDeliveriesService) {
    super(webhooks, webhookDeliveries);
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: "List your organisation's webhook endpoints in the caller's mode, newest first",
  })
  @ApiOkResponse({ type: WebhookListV2Dto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V2ListQueryDto,
  ): Promise<WebhookListV2Dto> {
    const perPage = query.per_page;
    const page = await this.webhooks.page(principal, pageRequest('webhook', query));
    return v2Page('webhook', page, perPage, toWebhookDto);
  }

  // Declared before the base class's `GET :webhook_id`, which Nest registers after this class's
  // own routes, so the path is never read as a webhook id.
  @Get('source-addresses')
  @Auth({ scopes: [], members: true })
  @ApiOperation({
    summary: 'The IP addresses webhook deliveries come from',
    description:
      "The fixed set of source addresses every delivery of this deployment leaves from, the same for every organisation and mode, for receivers to allow-list (firewall or application). Deliveries go from each in turn, so allow all of them. An empty list means the deployment publishes none and deliveries come from its host's default address. Any valid credential may read it: no scope is needed.",
  })
  @ApiOkResponse({ type: WebhookSourceAddressesDto })
  sourceAddresses(): WebhookSourceAddressesDto {
    return { addresses: this.webhooks.sourceAddresses() };
  }

  @Get('events/replay')
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @ApiOperation({
    summary: 'Replay events to one endpoint',
    description:
      'Schedules the events of a time range (`from`, `to`) or after an event (`since_event_id`) that the endpoint subscribes to, in the order they happened, one at a time. Events the endpoint already acknowledged (2xx) are skipped unless `include_delivered=true`; events with a delivery still pending are always skipped, so repeating a replay sends nothing twice. `dry_run=true` only counts. At most 10,000 events per call.',
  })
  @ApiResponse({
    status: 404,
    description: 'No such webhook (or `since_event_id` event) in your organisation and mode',
    type: ErrorEnvelopeDto,
  })
  @ApiOkResponse({ type: ReplayResultDto })
  async replay(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ReplayQueryDto,
  ): Promise<ReplayResultDto> {
    const dryRun = query.dry_run ?? false;
    const result = await this.webhookDeliveries.replay(principal, {
      webhookId: query.webhook_id,
      from: query.from === undefined ? undefined : new Date(query.from),
      to: query.to === undefined ? undefined : new Date(query.to),
      sinceEventId: query.since_event_id,
      includeDelivered: query.include_delivered ?? false,
      dryRun,
    });
    return {
      replay_id: result.replayId === null ? null : toPublicId('replay', result.replayId),
      webhook_id: query.webhook_id,
      matched: result.matched,
      scheduled: result.scheduled,
      skipped_acknowledged: result.skippedAcknowledged,
      skipped_pending: result.skippedPending,
      dry_run: dryRun,
    };
  }

  @Get(':webhook_id/deliveries')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: "List an endpoint's deliveries with their attempts, newest first" })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook')
  @ApiOkResponse({ type: DeliveryListV2Dto })
  async deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
    @Query() query: DeliveryListV2QueryDto,
  ): Promise<DeliveryListV2Dto> {
    const perPage = query.per_page;
    const page = await this.webhookDeliveries.pageDeliveries(principal, id, {
      ...pageRequest('webhookDelivery', query),
      state: query.state,
    });
    return v2Page('webhookDelivery', page, perPage, toDeliveryDto);
  }
}
