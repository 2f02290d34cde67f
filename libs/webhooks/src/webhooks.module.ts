import { TypeOrmModule } from '@nestjs/typeorm';
import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { OutboundModule } from '#outbound';
import { EventRetention } from './event-retention.js';
import { WebhookDeliverer } from './webhook-deliverer.js';
import { WebhookFanOut } from './webhook-fan-out.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhooksService } from './webhooks.service.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WEBHOOK_ENTITIES } from './entities.js';

/** Managing webhooks (the API). */
@Module({
  imports: [TypeOrmModule.forFeature(WEBHOOK_ENTITIES), DatabaseModule, OutboundModule],
  providers: [WebhooksService, WebhookDeliveriesService],
  exports: [WebhooksService, WebhookDeliveriesService],
})
export class WebhooksModule {}

/** Delivering them (the worker): fan-out inside the outbox relay, the deliverer, event retention. */
@Module({
  imports: [WebhooksModule, DatabaseModule, EventsModule, OutboundModule],
  providers: [WebhookSender, WebhookDeliverer, WebhookFanOut, EventRetention],
  exports: [WebhookDeliverer, EventRetention],
})
export class WebhooksWorkModule {}
