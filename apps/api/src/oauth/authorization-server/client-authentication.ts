import type { Request } from 'express';
import { OAuthError } from '../../http/oauth-error.js';

/** The client-authentication fields of an urlencoded OAuth request body. */
export interface ClientCredentialsForm {
  client_id?: unknown;
  client_secret?: unknown;
  [field: string]: unknown;
}

export interface ClientCredentials {
  clientId: string;
  secret: string | undefined;
}

/** `Authorization: Basic` credentials (RFC 6749 §2.3.1: form-urlencoded, then base64), or null. */
export function parseBasic(header: string | undefined): ClientCredentials | null {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return null;
  }
}

/** The client_id a request claims, from the header or the body; undefined when it names none. */
export function clientIdOf(form: ClientCredentialsForm, authorization: string | undefined) {
  const basic = parseBasic(authorization);
  if (basic) return basic.clientId;
  return typeof form.client_id === 'string' && form.client_id !== '' ? form.client_id : undefined;
}

/** client_secret_basic or client_secret_post, never both (RFC 6749 §2.3). */
export function clientCredentialsOf(
  form: ClientCredentialsForm,
  authorization: string | undefined,
): { clientId: string; secret: string } {
  const basic = parseBasic(authorization);
  if (basic && (form.client_id !== undefined || form.client_secret !== undefined)) {
    throw new OAuthError(
      'invalid_request',
      'client authentication must only be provided using one mechanism',
    );
  }
  const clientId = basic?.clientId ?? form.client_id;
  const secret = basic?.secret ?? form.client_secret;
  if (typeof clientId !== 'string' || typeof secret !== 'string' || secret === '') {
    throw new OAuthError('invalid_client', 'client authentication failed');
  }
  return { clientId, secret };
}

/**
 * Failures count per client *and* address: counting per client alone would let
 * anyone lock a real client out by sending wrong secrets in its name.
 */
export function clientAttempt(request: Request): string | undefined {
  const clientId = clientIdOf(formOf(request), request.headers.authorization);
  return clientId === undefined ? undefined : `${clientId} ${addressOf(request)}`;
}

export function addressOf(request: Request): string {
  return request.ip ?? 'unknown';
}

export function formOf(request: Request): ClientCredentialsForm {
  const body: unknown = request.body;
  return typeof body === 'object' && body !== null ? (body as ClientCredentialsForm) : {};
}
