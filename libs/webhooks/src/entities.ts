import { WebhookEntity } from './entities/webhook.entity.js';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity.js';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const WEBHOOK_ENTITIES = [WebhookEntity, WebhookDeliveryEntity, WebhookAttemptEntity];
