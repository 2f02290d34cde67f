import { HttpException, Logger, NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, httpStatusOf } from '#common';
import { isDependencyUnavailable } from '#queue';
import { asScimError, isScimPath, SCIM_MEDIA_TYPE, scimErrorBody } from '#scim';
import { errorEnvelope } from './error-envelope.js';
import { OAuthError } from './oauth-error.js';
import { isVersion2, type ApiRequest } from './request-context.js';
import { REQUEST_ID_HEADER } from './request-id.middleware.js';
import { linkBaseOf } from './sandbox.js';
import { allowedMethods } from './route-table.js';

const logger = new Logger('HttpErrors');

/** Shared with the worker, which waits such failures out instead of answering 503. */
export { isDependencyUnavailable };

/** Errors raised by body-parser carry a `type`; they are the client's fault, never a 500. */
interface BodyParserError {
  type: string;
  status?: number;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { type?: unknown }).type === 'string' &&
    typeof (error as { status?: unknown }).status === 'number'
  );
}

/** Any thrown value → the AppError the client should see. Unexpected ones are logged here with their cause. */
export function toAppError(error: unknown, request: Request): AppError {
  if (error instanceof AppError) return error;
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.parse.failed':
        return new AppError('INVALID_REQUEST', 'The request body is not valid JSON', {
          field: 'body',
          issue: 'malformed JSON',
        });
      case 'entity.too.large':
        return new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${error.limit} bytes`, {
          field: 'body',
          issue: `larger than ${error.limit} bytes`,
        });
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported body encoding or charset', {
          field: 'body',
          issue: error.type,
        });
      default:
        return new AppError('INVALID_REQUEST', 'The request body could not be read', {
          field: 'body',
          issue: error.type,
        });
    }
  }
  if (error instanceof NotFoundException) {
    const allow = allowedMethods(request);
    if (allow.length > 0) {
      return new AppError(
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${request.path}`,
        { issue: `allowed methods: ${allow.join(', ')}` },
        { Allow: allow.join(', ') },
      );
    }
    return new AppError('NOT_FOUND', `No route ${request.method} ${request.path}`, {
      issue: 'unknown route',
    });
  }
  if (error instanceof HttpException && error.getStatus() < 500) {
    return fromHttpStatus(error.getStatus(), error.message);
  }
  if (isDependencyUnavailable(error)) {
    warnUnavailable(error, (request as ApiRequest).id);
    return new AppError(
      'SERVICE_UNAVAILABLE',
      'A service this request needs is temporarily unavailable; try again shortly',
      { issue: 'the database cannot be reached' },
      { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    );
  }
  logger.error({ err: error, requestId: (request as ApiRequest).id }, 'unhandled error');
  return new AppError('INTERNAL_ERROR', 'An unexpected error occurred');
}

/** What a client waiting out an outage is told: the pool reconnects as soon as PostgreSQL answers. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** During an outage every request fails alike: one warning every few seconds says so. */
const WARN_EVERY_MS = 5_000;
let lastUnavailableWarning = 0;

function warnUnavailable(error: unknown, requestId: string | undefined): void {
  const now = Date.now();
  if (now - lastUnavailableWarning < WARN_EVERY_MS) return;
  lastUnavailableWarning = now;
  logger.warn({ err: error, requestId }, 'a dependency is unavailable: answering 503');
}

function fromHttpStatus(status: number, message: string): AppError {
  switch (status) {
    case 401:
      return AppError.unauthorized(message);
    case 403:
      return new AppError('FORBIDDEN', message, { field: 'Authorization', issue: message });
    case 404:
      return new AppError('NOT_FOUND', message);
    case 405:
      return new AppError('METHOD_NOT_ALLOWED', message);
    case 409:
      return new AppError('CONFLICT', message);
    case 413:
      return new AppError('PAYLOAD_TOO_LARGE', message);
    case 415:
      return new AppError('UNSUPPORTED_MEDIA_TYPE', message);
    case 429:
      return new AppError('RATE_LIMITED', message);
    default:
      return new AppError('INVALID_REQUEST', message);
  }
}

/** Writes an error response: RFC 6749 form for the token endpoint, the spec's envelope elsewhere. */
export function sendError(
  error: unknown,
  request: Request,
  response: Response,
  publicUrl: string,
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const requestId = (request as ApiRequest).id;
  clearSuccessHeaders(response);
  if (requestId) response.setHeader(REQUEST_ID_HEADER, requestId);
  if (error instanceof OAuthError) {
    response.set({ ...error.headers, 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    response
      .status(error.status)
      .json({ error: error.error, error_description: error.description });
    return;
  }
  if (isScimPath(request.path)) {
    sendScimError(error, request, response);
    return;
  }
  const appError = toAppError(error, request);
  const { status, body } = errorEnvelope(
    appError,
    requestId,
    isVersion2(request),
    linkBaseOf(request as ApiRequest, publicUrl),
  );
  response.set(appError.headers);
  response.status(status).json(body);
}

/**
 * SCIM clients (Okta, Entra ID) read errors in SCIM's own schema (RFC 7644
 * §3.12), with `scimType` where one applies: so every error under /scim/v2,
 * whoever raised it (the token check, body parsing, a rate limit, the
 * directory), is written in it here.
 */
function sendScimError(error: unknown, request: Request, response: Response): void {
  const scim = asScimError(error);
  if (scim !== null) {
    response.status(scim.status).type(SCIM_MEDIA_TYPE);
    response.send(JSON.stringify(scimErrorBody(scim.status, scim.detail, scim.scimType)));
    return;
  }
  const appError = toAppError(error, request);
  const status = httpStatusOf(appError.code);
  const issue = appError.details.issue;
  const detail =
    issue && !appError.message.includes(issue) ? `${appError.message}: ${issue}` : appError.message;
  const scimType = appError.code === 'INVALID_REQUEST' ? 'invalidSyntax' : null;
  response.set(appError.headers);
  response.status(status).type(SCIM_MEDIA_TYPE);
  response.send(JSON.stringify(scimErrorBody(status, detail, scimType)));
}

/** Headers that belong to every response, errors included. */
const KEPT_ON_ERROR =
  /^(x-request-id|x-ratelimit-.*|ratelimit.*|retry-after|vary|access-control-.*)$/i;

/** A route's own headers (content type, caching) were set for its success; they must not describe an error. */
function clearSuccessHeaders(response: Response): void {
  for (const name of response.getHeaderNames()) {
    if (!KEPT_ON_ERROR.test(name)) response.removeHeader(name);
  }
  response.setHeader('Cache-Control', 'no-store');
}
