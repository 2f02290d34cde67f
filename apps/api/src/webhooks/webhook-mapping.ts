import { toPublicId } from '#common';
import type { WebhookEntity } from '#webhooks';
import type { DeliveryWithAttempts } from '#webhooks';
import type { DeliveryDto, WebhookDto } from './webhook.dto.js';

export function toWebhookDto(webhook: WebhookEntity): WebhookDto {
  const overlapping =
    webhook.previousSecretExpiresAt !== null && webhook.previousSecretExpiresAt > new Date();
  return {
    webhook_id: toPublicId('webhook', webhook.id),
    url: webhook.url,
    events: webhook.events,
    active: webhook.active,
    status: webhook.status,
    status_reason: webhook.statusReason,
    envelope_format: webhook.envelopeFormat,
    previous_secret_expires_at: overlapping ? webhook.previousSecretExpiresAt!.toISOString() : null,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

export function toDeliveryDto({ delivery, event, attempts }: DeliveryWithAttempts): DeliveryDto {
  return {
    delivery_id: toPublicId('webhookDelivery', delivery.id),
    webhook_id: toPublicId('webhook', delivery.webhookId),
    event_id: toPublicId('event', event.id),
    event_type: event.type,
    origin: delivery.origin,
    state: delivery.state,
    attempt_count: delivery.attempts,
    max_attempts: delivery.maxAttempts,
    next_attempt_at:
      delivery.state === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    replay_id: delivery.replayId === null ? null : toPublicId('replay', delivery.replayId),
    created_at: delivery.createdAt.toISOString(),
    completed_at: delivery.completedAt?.toISOString() ?? null,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attemptNumber,
      started_at: attempt.startedAt.toISOString(),
      status_code: attempt.statusCode,
      latency_ms: attempt.durationMs,
      response_body: attempt.responseBody,
      error: attempt.error,
    })),
  };
}
