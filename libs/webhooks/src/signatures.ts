import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Signing of webhook deliveries; receivers verify with the SDK's
 * `verifyWebhook` (packages/sdk, Web Crypto). Two schemes are sent together:
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

/** A new signing secret in the Standard Webhooks form: `whsec_` + 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function standardKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** HMAC keys of recent secrets: making a key object of the raw bytes is most of a signature's cost. */
const KEYS_KEPT = 1000;
const keys = new Map<string, { service: KeyObject; standard: KeyObject }>();

function keysOf(secret: string): { service: KeyObject; standard: KeyObject } {
  let pair = keys.get(secret);
  if (!pair) {
    pair = {
      service: createSecretKey(Buffer.from(secret, 'utf8')),
      standard: createSecretKey(standardKey(secret)),
    };
    if (keys.size >= KEYS_KEPT) keys.clear();
    keys.set(secret, pair);
  }
  return pair;
}

export function serviceSignature(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', keysOf(secret).service).update(body).digest('hex');
}

export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): string {
  const digest = createHmac('sha256', keysOf(secret).standard)
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
