import type { Client } from '@sas/sdk';
import type { Credential, Resolved } from './config.js';

/** The CLI's version, sent in the User-Agent after the SDK's. */
export const CLI_VERSION = '2.0.0';

/** An SDK client for the resolved credentials (the SDK is imported only when a command needs it). */
export async function sdkClient(resolved: Resolved): Promise<Client> {
  const { Client } = await import('@sas/sdk');
  const credential = resolved.credential;
  return new Client({
    baseUrl: resolved.apiUrl,
    appInfo: `sas-cli/${CLI_VERSION}`,
    ...(credential.kind === 'api_key'
      ? { apiKey: credential.apiKey }
      : { clientId: credential.clientId, clientSecret: credential.clientSecret }),
  });
}

/** An OAuth access token for client credentials (`POST /oauth2/token`). */
export async function accessToken(
  apiUrl: string,
  credential: Extract<Credential, { kind: 'client_credentials' }>,
): Promise<string> {
  const body = await oauthForm<{ access_token: string }>(`${apiUrl}/oauth2/token`, {
    grant_type: 'client_credentials',
    client_id: credential.clientId,
    client_secret: credential.clientSecret,
  });
  return body.access_token;
}

/** A form POST to an OAuth endpoint; an error answer becomes a SasError with its request id. */
export async function oauthForm<T>(url: string, form: Record<string, string>): Promise<T> {
  const response = await send(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (!response.ok || body === null) {
    const { SasError } = await import('@sas/sdk');
    throw new SasError(
      typeof body?.error_description === 'string'
        ? body.error_description
        : `${url} answered ${response.status}`,
      response.status,
      typeof body?.error === 'string' ? body.error : `HTTP_${response.status}`,
      {},
      response.headers.get('x-request-id'),
      null,
      response.headers,
    );
  }
  return body as T;
}

/** Headers that authenticate a request or a WebSocket handshake with the credential. */
export async function authHeaders(resolved: Resolved): Promise<Record<string, string>> {
  const credential = resolved.credential;
  if (credential.kind === 'api_key') return { 'x-api-key': credential.apiKey };
  return { authorization: `Bearer ${await accessToken(resolved.apiUrl, credential)}` };
}

/**
 * A JSON request to a route the SDK has no method for (`POST /v2/events/trigger`):
 * authenticated, an Idempotency-Key on POST, errors as the SDK's typed errors.
 */
export async function apiRequest<T>(
  resolved: Resolved,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': `sas-cli/${CLI_VERSION}`,
    ...(await authHeaders(resolved)),
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method === 'POST') headers['idempotency-key'] = globalThis.crypto.randomUUID();
  const response = await send(`${resolved.apiUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const parsed: unknown = text === '' ? null : safeJson(text);
  if (!response.ok) {
    const { errorFromResponse } = await import('@sas/sdk');
    throw errorFromResponse(response.status, parsed, response.headers);
  }
  return parsed as T;
}

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    const { ConnectionError } = await import('@sas/sdk');
    const reason =
      error instanceof Error
        ? ((error.cause as Error | undefined)?.message ?? error.message)
        : String(error);
    throw new ConnectionError(
      `The service at ${new URL(url).origin} could not be reached: ${reason}`,
      0,
      'CONNECTION_ERROR',
      {},
      null,
      null,
    );
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
