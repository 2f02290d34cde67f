// The official TypeScript client of the Session and Analysis Service (library version 2).
export { Client, type ClientOptions, SDK_VERSION } from './client.js';
export * from './errors.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  type VerifyOptions,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhook-signatures.js';
export { CursorList, type CursorPage, ListIterator, type OffsetPage } from './pagination.js';
export {
  backoffMs,
  type Credentials,
  MAX_RETRY_DELAY_MS,
  RATE_LIMIT_FALLBACK_MS,
  type RequestOptions,
  retryDelayMs,
} from './transport.js';
export { WaitTimeoutError, type WaitOptions, type WorkRef } from './wait.js';
export type * from './resources/sessions.js';
export type * from './resources/analyses.js';
export type * from './resources/dowsing.js';
export type * from './resources/history.js';
export type * from './resources/webhooks.js';
export type * from './resources/api-keys.js';
export type * from './resources/analytics.js';
export type * from './resources/reports.js';
export type * from './resources/profile.js';
export type * from './resources/analysts.js';
export type * from './resources/assignments.js';
export type * from './resources/judging-tasks.js';
export type * from './resources/targets.js';
export type * from './resources/sso-connections.js';
export type * from './resources/scim-tokens.js';
export type * from './resources/audit-events.js';
export type { Submission } from './resources/resource.js';
export type * as Api from './generated/types.gen.js';
