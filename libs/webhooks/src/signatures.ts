import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signing of webhook deliveries, and the matching verification for receivers
 * (the SDK exports `verifyWebhook`). Two schemes are sent together:
 *
 * - `X-Service-Signature: sha256=<hex>`, the spec's: HMAC-SHA256 of the raw
 *   body keyed with the secret's UTF-8 bytes. It does not cover a time, so a
 *   captured delivery can be replayed.
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature:
 *   v1,<base64>`): HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with the
 *   base64 part of a `whsec_` secret (or the UTF-8 bytes of any other secret).
 *   Receivers reject stale timestamps, which stops replays.
 *
 * During a secret rotation's overlap each header carries one signature per
 * secret (comma-separated for the spec's header, space-separated for
 * `webhook-signature`); a receiver accepts the delivery when any one matches.
 */

const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** A new signing secret in the Standard Webhooks form: `whsec_` + 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function standardKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export function serviceSignature(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): string {
  const digest = createHmac('sha256', standardKey(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${digest}`;
}

export interface SignedHeaders {
  'x-service-signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The signature headers of one delivery attempt; the current secret's signatures come first. */
export function signatureHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): SignedHeaders {
  return {
    'x-service-signature': secrets.map((secret) => serviceSignature(secret, body)).join(','),
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets
      .map((secret) => standardSignature(secret, id, timestamp, body))
      .join(' '),
  };
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function header(headers: Record<string, string | string[] | undefined>, name: string) {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Checks a delivery as a receiver should: the Standard Webhooks signature with
 * a timestamp within `toleranceSeconds` of now when those headers are present,
 * and the `X-Service-Signature` in every case. Throws WebhookVerificationError
 * (answer 401) on any mismatch; returns the parsed body.
 */
export function verifyWebhook(
  secret: string,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
  options: { toleranceSeconds?: number; now?: Date } = {},
): unknown {
  const service = header(headers, 'x-service-signature');
  if (!service) throw new WebhookVerificationError('missing X-Service-Signature');
  const expected = serviceSignature(secret, rawBody);
  if (!service.split(',').some((candidate) => sameText(candidate.trim(), expected))) {
    throw new WebhookVerificationError('X-Service-Signature does not match');
  }
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id !== undefined || timestamp !== undefined || signatures !== undefined) {
    if (!id || !timestamp || !signatures) {
      throw new WebhookVerificationError('incomplete webhook-id/-timestamp/-signature headers');
    }
    const seconds = Number(timestamp);
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > tolerance) {
      throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
    }
    const wanted = standardSignature(secret, id, seconds, rawBody);
    if (!signatures.split(' ').some((candidate) => sameText(candidate, wanted))) {
      throw new WebhookVerificationError('webhook-signature does not match');
    }
  }
  return JSON.parse(rawBody) as unknown;
}
