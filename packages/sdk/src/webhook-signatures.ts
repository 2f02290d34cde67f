/**
 * Verifying a webhook delivery as a receiver should, with the Web Crypto API
 * (Node 20+, browsers, edge runtimes). Two schemes arrive together:
 *
 * - `X-Service-Signature: sha256=<hex>`, the spec's: HMAC-SHA256 of the raw
 *   body keyed with the secret's UTF-8 bytes. It covers no time.
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature:
 *   v1,<base64>`): HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with the
 *   base64 part of a `whsec_` secret (else the secret's UTF-8 bytes); a stale
 *   timestamp is refused, which stops replays.
 *
 * During a secret rotation each header carries one signature per secret
 * (comma-separated for the spec's header, space-separated for
 * `webhook-signature`): any one matching is enough.
 */

const SECRET_PREFIX = 'whsec_';
/** How far `webhook-timestamp` may be from now: 5 minutes, as Standard Webhooks recommends. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Request headers as Node's `IncomingMessage`, Fetch's `Headers`, or a plain object hold them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** The time to judge the timestamp by (tests). */
  now?: Date;
}

/**
 * Checks a delivery and returns its parsed body; throws
 * WebhookVerificationError (answer 401) on any mismatch. `rawBody` must be
 * the body exactly as received — a re-serialised JSON object no longer
 * matches. The Standard Webhooks headers are checked whenever present, the
 * spec's signature always.
 */
export async function verifyWebhook(
  secret: string,
  rawBody: string,
  headers: WebhookHeaders,
  options: VerifyOptions = {},
): Promise<unknown> {
  const service = header(headers, 'x-service-signature');
  if (!service) throw new WebhookVerificationError('missing X-Service-Signature');
  const expected = `sha256=${hex(await hmac(utf8(secret), rawBody))}`;
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
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > tolerance) {
      throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
    }
    const wanted = `v1,${base64(await hmac(standardKey(secret), `${id}.${timestamp}.${rawBody}`))}`;
    if (!signatures.split(' ').some((candidate) => sameText(candidate, wanted))) {
      throw new WebhookVerificationError('webhook-signature does not match');
    }
  }
  return JSON.parse(rawBody) as unknown;
}

/** Signs a body as the service does (for a local forwarder, or tests of a receiver). */
export async function signWebhook(
  secret: string,
  id: string,
  timestamp: number,
  rawBody: string,
): Promise<Record<string, string>> {
  return {
    'x-service-signature': `sha256=${hex(await hmac(utf8(secret), rawBody))}`,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${base64(await hmac(standardKey(secret), `${id}.${timestamp}.${rawBody}`))}`,
  };
}

/** A new signing secret in the Standard Webhooks form: `whsec_` + 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + base64(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

function standardKey(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(SECRET_PREFIX)) return utf8(secret);
  const binary = atob(secret.slice(SECRET_PREFIX.length));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

async function hmac(key: Uint8Array<ArrayBuffer>, message: string): Promise<Uint8Array> {
  const imported = await globalThis.crypto.subtle.importKey(
    'raw',
    key,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', imported, utf8(message)));
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : value;
}

/** Compares in time independent of where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function utf8(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text);
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}
