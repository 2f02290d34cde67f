import { Body, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { WebhookDeliveriesService, WebhooksService } from '#webhooks';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { Audited } from '../../http/audited.decorator.js';
import { V1ListQueryDto, v1Page } from '../../http/v1-list.dto.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { WebhookDto } from '../webhook.dto.js';
import { toDeliveryDto, toWebhookDto } from '../webhook-mapping.js';
import { WEBHOOK_ID_EXAMPLE, WebhooksBaseController } from '../webhooks-base.controller.js';
import {
  DeliveryListDto,
  DeliveryListQueryDto,
  REPLACE_WEBHOOK_EXAMPLES,
  ReplaceWebhookDto,
  WebhookListDto,
} from './webhook-v1.dto.js';

@ApiTags('Webhooks (v1)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'webhooks', version: '1' })
export class WebhooksV1Controller extends WebhooksBaseController {
  constructor(webhooks: WebhooksService, webhookDeliveries: WebhookDeliveriesService) {
    super(webhooks, webhookDeliveries);
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: "List your organisation's webhook endpoints in the caller's mode, newest first",
  })
  @ApiOkResponse({ type: WebhookListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V1ListQueryDto,
  ): Promise<WebhookListDto> {
    return v1Page(query, (page) => this.webhooks.list(principal, page), toWebhookDto);
  }

  @Put(':webhook_id')
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('webhook.updated')
  @ApiOperation({
    summary: 'Replace a webhook endpoint',
    description:
      'Sets every field: those left out take their defaults (`active` true, `envelope_format` standard). The secret is kept unless one is given, which then replaces the old one at once (use rotate-secret for an overlap).',
  })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook')
  @ApiJsonBody(ReplaceWebhookDto, REPLACE_WEBHOOK_EXAMPLES)
  @ApiOkResponse({ type: WebhookDto })
  async replace(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
    @Body() body: ReplaceWebhookDto,
  ): Promise<WebhookDto> {
    return toWebhookDto(
      await this.webhooks.replace(principal, id, {
        url: body.url,
        events: body.events,
        secret: body.secret,
        active: body.active,
        envelopeFormat: body.envelope_format,
      }),
    );
  }

  @Get(':webhook_id/deliveries')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: "List an endpoint's deliveries with their attempts, newest first",
  })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook')
  @ApiOkResponse({ type: DeliveryListDto })
  async deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
    @Query() query: DeliveryListQueryDto,
  ): Promise<DeliveryListDto> {
    return v1Page(
      query,
      (page) =>
        this.webhookDeliveries.listDeliveries(principal, id, { ...page, state: query.state }),
      toDeliveryDto,
    );
  }
}
