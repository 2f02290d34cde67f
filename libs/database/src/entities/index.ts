import { ApiKeyEntity } from './api-key.entity.js';
import { EventEntity } from './event.entity.js';
import { OAuthClientEntity } from './oauth-client.entity.js';
import { OrganizationEntity } from './organization.entity.js';
import { SessionEntity } from './session.entity.js';
import { SigningKeyEntity } from './signing-key.entity.js';
import { UserEntity } from './user.entity.js';
import { OidcPayloadEntity } from './oidc-payload.entity.js';
import { ServerSecretEntity } from './server-secret.entity.js';
import { WebhookEntity } from './webhook.entity.js';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';
import { WebhookAttemptEntity } from './webhook-attempt.entity.js';
import { AuditRecordEntity } from './audit-record.entity.js';
import { IdempotencyKeyEntity } from './idempotency-key.entity.js';
import { SessionTemplateEntity } from './session-template.entity.js';
import { BatchEntity } from './batch.entity.js';

export * from './api-key.entity.js';
export * from './event.entity.js';
export * from './oauth-client.entity.js';
export * from './organization.entity.js';
export * from './session.entity.js';
export * from './signing-key.entity.js';
export * from './user.entity.js';
export * from './oidc-payload.entity.js';
export * from './server-secret.entity.js';
export * from './webhook.entity.js';
export * from './webhook-delivery.entity.js';
export * from './webhook-attempt.entity.js';
export * from './audit-record.entity.js';
export * from './session-template.entity.js';
export * from './batch.entity.js';
export * from './idempotency-key.entity.js';

export const ENTITIES = [
  OrganizationEntity,
  OAuthClientEntity,
  SigningKeyEntity,
  ApiKeyEntity,
  SessionEntity,
  EventEntity,
  UserEntity,
  OidcPayloadEntity,
  ServerSecretEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
  WebhookAttemptEntity,
  AuditRecordEntity,
  IdempotencyKeyEntity,
  SessionTemplateEntity,
  BatchEntity,
];
export * from './json.js';
