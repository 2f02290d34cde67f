import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, isPublicId, newId } from '#common';
import { credentialHeadersOf, type CredentialHeaders } from '#auth';
import { errorEnvelope } from '../http/error-envelope.js';
import { REQUEST_ID_HEADER } from '../http/request-id.middleware.js';

/**
 * The HTTP side of the API's WebSockets: which upgrades are ours, where
 * their credential is, and how a refused one is answered (a plain HTTP
 * response in the service's error envelope, before any WebSocket exists).
 */

/** A WebSocket upgrade of one of `paths`; every other request stays with Express. */
export function isWebSocketUpgrade(
  request: IncomingMessage,
  paths: { has(path: string): boolean },
): boolean {
  const path = (request.url ?? '').split('?', 1)[0]!;
  return request.headers.upgrade?.toLowerCase() === 'websocket' && paths.has(path);
}

/**
 * The answer to a plain HTTP request (no WebSocket upgrade) to a WebSocket
 * path: 426 with `Upgrade: websocket` to GET and HEAD, whose handshake it is
 * missing; 405 to any other method, which no handshake uses.
 */
export function upgradeRequired(method: string, path: string): AppError {
  if (method === 'GET' || method === 'HEAD') {
    return new AppError(
      'UPGRADE_REQUIRED',
      `${path} is a WebSocket: connect with a WebSocket client`,
      { field: 'Upgrade', issue: 'send the WebSocket handshake (Upgrade: websocket)' },
      { Upgrade: 'websocket' },
    );
  }
  return new AppError(
    'METHOD_NOT_ALLOWED',
    `${method} is not allowed on ${path}`,
    { issue: 'allowed methods: GET, HEAD (a WebSocket handshake is a GET)' },
    { Allow: 'GET, HEAD' },
  );
}

/** The caller's `X-Request-Id` when it is a well-formed `req_` id, else a new one (as for HTTP). */
export function handshakeRequestId(request: IncomingMessage): string {
  const incoming = single(request.headers['x-request-id']);
  return incoming !== undefined && isPublicId('request', incoming) ? incoming : newId('request');
}

/**
 * The credential of an upgrade: `Authorization: Bearer`, `X-API-Key`, or, since
 * browsers cannot set headers on a WebSocket, an `access_token` query parameter.
 */
export function handshakeCredentials(request: IncomingMessage): CredentialHeaders {
  const { authorization, apiKey } = credentialHeadersOf(request.rawHeaders);
  const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
  const token = query.get('access_token') ?? undefined;
  if (token === undefined || token === '') return { authorization, apiKey };
  if (authorization !== undefined) {
    throw AppError.unauthorized(
      'send the credential in the Authorization header or as access_token, not both',
      'access_token',
    );
  }
  if (/\s/.test(token)) {
    throw AppError.unauthorized('the access_token parameter is malformed', 'access_token');
  }
  return { authorization: `Bearer ${token}`, apiKey };
}

/**
 * Answers the upgrade with an HTTP error in the service's envelope (the
 * version 2 form for a `/v2/` path, as for HTTP) and closes the connection.
 */
export function refuseUpgrade(
  socket: Duplex,
  error: AppError,
  requestId: string,
  publicUrl: string,
  version2: boolean,
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { status, body } = errorEnvelope(error, requestId, version2, publicUrl);
  const json = JSON.stringify(body);
  const headers: Record<string, string> = {
    ...error.headers,
    [REQUEST_ID_HEADER]: requestId,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(json)),
    'Cache-Control': 'no-store',
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value.replace(/[\r\n]+/g, ' ')}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n\r\n${json}`);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
