import { TypeOrmModule } from '@nestjs/typeorm';
import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { OutboundModule } from '#outbound';
import { DeliveryClaims } from './delivery-claims.js';
import { DeliveryLeasesRepository } from './delivery-leases.repository.js';
import { DeliveryOutcomes } from './delivery-outcomes.js';
import { EventRetention } from './event-retention.js';
import { WebhookDeliverer } from './webhook-deliverer.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookFanOut } from './webhook-fan-out.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhookReadModelRepository } from './webhook-read-model.repository.js';
import { WebhooksService } from './webhooks.service.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WEBHOOK_ENTITIES } from './entities.js';

const REPOSITORIES = [WebhooksRepository, WebhookDeliveriesRepository, DeliveryLeasesRepository];

/** Managing webhooks (the API), and the repositories and delivery rows both apps use. */
@Module({
  imports: [
    TypeOrmModule.forFeature(WEBHOOK_ENTITIES),
    DatabaseModule,
    EventsModule,
    OutboundModule,
  ],
  providers: [
    ...REPOSITORIES,
    WebhookReadModelRepository,
    WebhooksService,
    WebhookDeliveriesService,
    DeliveryClaims,
    DeliveryOutcomes,
  ],
  exports: [
    ...REPOSITORIES,
    WebhookReadModelRepository,
    WebhooksService,
    WebhookDeliveriesService,
    DeliveryClaims,
    DeliveryOutcomes,
  ],
})
export class WebhooksModule {}

/** Delivering them (the worker): fan-out inside the outbox relay, the deliverer, event retention. */
@Module({
  imports: [WebhooksModule, DatabaseModule, EventsModule, OutboundModule],
  providers: [WebhookSender, WebhookDeliverer, WebhookFanOut, EventRetention],
  exports: [WebhookDeliverer, EventRetention],
})
export class WebhooksWorkModule {}
