import { Body, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
} from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { WebhookDeliveriesService, WebhooksService } from '#webhooks';
import { Auth, CurrentPrincipal } from '../http/auth.decorator.js';
import { Audited } from '../http/audited.decorator.js';
import { ErrorEnvelopeDto } from '../http/error-envelope.dto.js';
import { ApiJsonBody } from '../http/request-examples.js';
import { ResourceParam } from '../http/resource-param.decorator.js';
import {
  CREATE_WEBHOOK_EXAMPLES,
  CreateWebhookDto,
  DeliveryDto,
  ROTATE_WEBHOOK_SECRET_EXAMPLES,
  RotateWebhookSecretDto,
  TEST_WEBHOOK_EXAMPLES,
  TestWebhookDto,
  UPDATE_WEBHOOK_EXAMPLES,
  UpdateWebhookDto,
  WebhookDto,
  WebhookWithSecretDto,
} from './webhook.dto.js';
import { toDeliveryDto, toWebhookDto } from './webhook-mapping.js';

export const WEBHOOK_ID_EXAMPLE = 'wh_01jh2x7v4ke8rbk3a8y0v0d7qz';
const DELIVERY_ID_EXAMPLE = 'dlv_01jh2x7v4ke8rbk3a8y0v0d7qz';
const SIGNING =
  'Deliveries are POSTed with `X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body>` and the Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature` (see docs/webhooks.md, "Verifying a delivery").';

/** The routes both versions share; each version's controller adds its list shapes. */
export abstract class WebhooksBaseController {
  constructor(
    protected readonly webhooks: WebhooksService,
    protected readonly webhookDeliveries: WebhookDeliveriesService,
  ) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('webhook.created')
  @ApiOperation({
    summary: 'Register a webhook endpoint',
    description: `The receiver must be https:// with a valid certificate, on a public address. ${SIGNING} The secret is shown once, here.`,
  })
  @ApiJsonBody(CreateWebhookDto, CREATE_WEBHOOK_EXAMPLES)
  @ApiCreatedResponse({ type: WebhookWithSecretDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateWebhookDto,
  ): Promise<WebhookWithSecretDto> {
    const { webhook, secret } = await this.webhooks.create(principal, {
      url: body.url,
      events: body.events,
      secret: body.secret,
      active: body.active,
      envelopeFormat: body.envelope_format,
    });
    return { ...toWebhookDto(webhook), secret };
  }

  @Get(':webhook_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: 'Read a webhook endpoint (never its secret)' })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook')
  @ApiOkResponse({ type: WebhookDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
  ): Promise<WebhookDto> {
    return toWebhookDto(await this.webhooks.get(principal, id));
  }

  @Patch(':webhook_id')
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('webhook.updated')
  @ApiOperation({
    summary: 'Change a webhook endpoint',
    description:
      'Changes the fields sent. `active: true` re-enables a failed or disabled endpoint; `active: false` stops its deliveries.',
  })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook')
  @ApiJsonBody(UpdateWebhookDto, UPDATE_WEBHOOK_EXAMPLES)
  @ApiOkResponse({ type: WebhookDto })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookDto> {
    return toWebhookDto(
      await this.webhooks.update(principal, id, {
        url: body.url,
        events: body.events,
        active: body.active,
        envelopeFormat: body.envelope_format,
      }),
    );
  }

  @Delete(':webhook_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('webhook.deleted')
  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description: 'Its pending deliveries stop and its delivery history goes with it.',
  })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook')
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
  ): Promise<void> {
    await this.webhooks.delete(principal, id);
  }

  @Post(':webhook_id/rotate-secret')
  @HttpCode(200)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('webhook.secret_rotated')
  @ApiOperation({
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      'The new secret is shown once. For `overlap_seconds` (default a day) every delivery carries signatures for both secrets, so the receiver can switch without rejecting any.',
  })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook')
  @ApiJsonBody(RotateWebhookSecretDto, ROTATE_WEBHOOK_SECRET_EXAMPLES)
  @ApiOkResponse({ type: WebhookWithSecretDto })
  async rotateSecret(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
    @Body() body: RotateWebhookSecretDto,
  ): Promise<WebhookWithSecretDto> {
    const { webhook, secret } = await this.webhooks.rotateSecret(principal, id, {
      secret: body.secret,
      overlapSeconds: body.overlap_seconds,
    });
    return { ...toWebhookDto(webhook), secret };
  }

  @Post(':webhook_id/test')
  @HttpCode(202)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @ApiOperation({
    summary: 'Send a test delivery',
    description:
      "Sends one sample event of `event_type` (default `session.completed`), its data overlaid with `test_data`, to this endpoint only, in one attempt — even when it is inactive or not subscribed. Follow the delivery's outcome at GET …/deliveries/{delivery_id}.",
  })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook')
  @ApiJsonBody(TestWebhookDto, TEST_WEBHOOK_EXAMPLES)
  @ApiAcceptedResponse({ type: DeliveryDto })
  async test(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
    @Body() body: TestWebhookDto,
  ): Promise<DeliveryDto> {
    return toDeliveryDto(
      await this.webhookDeliveries.sendTest(
        principal,
        id,
        body.event_type ?? 'session.completed',
        body.test_data ?? {},
      ),
    );
  }

  @Get(':webhook_id/deliveries/:delivery_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: 'Read one delivery with its attempts' })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook or delivery')
  @ApiParam({ name: 'delivery_id', example: DELIVERY_ID_EXAMPLE })
  @ApiOkResponse({ type: DeliveryDto })
  async getDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
    @Param('delivery_id') deliveryId: string,
  ): Promise<DeliveryDto> {
    return toDeliveryDto(await this.webhookDeliveries.getDelivery(principal, id, deliveryId));
  }

  @Post(':webhook_id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @ApiOperation({
    summary: 'Retry a delivery now',
    description:
      'One more attempt of a delivery that has finished (succeeded, failed or cancelled), now. It does not restart the retry schedule.',
  })
  @ResourceParam('webhook_id', WEBHOOK_ID_EXAMPLE, 'webhook or delivery')
  @ApiParam({ name: 'delivery_id', example: DELIVERY_ID_EXAMPLE })
  @ApiResponse({
    status: 409,
    description: 'The delivery is still pending',
    type: ErrorEnvelopeDto,
  })
  @ApiAcceptedResponse({ type: DeliveryDto })
  async retryDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('webhook_id') id: string,
    @Param('delivery_id') deliveryId: string,
  ): Promise<DeliveryDto> {
    return toDeliveryDto(await this.webhookDeliveries.retryDelivery(principal, id, deliveryId));
  }
}
