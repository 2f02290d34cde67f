import type { NextFunction, Request, Response } from 'express';
import { isPublicId, newId, withRequestOrigin } from '#common';
import type { ApiRequest } from './request-context.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * Gives every request an id before anything else runs (so even a body that
 * fails to parse gets one): the caller's `X-Request-Id` when it is a well-formed
 * `req_` id, else a new one. Echoed on the response, bound to logs, copied into
 * outbox rows and jobs. The rest of the request runs within its origin (id,
 * client address, user agent), which the audit log reads.
 */
export function requestIdMiddleware(
  request: Request,
  response: Response,
  next: NextFunction,
): void {
  const incoming = request.header(REQUEST_ID_HEADER);
  const id =
    incoming !== undefined && isPublicId('request', incoming) ? incoming : newId('request');
  (request as ApiRequest).id = id;
  response.setHeader(REQUEST_ID_HEADER, id);
  const origin = {
    requestId: id,
    ip: request.ip ?? null,
    userAgent: request.header('user-agent') ?? null,
  };
  withRequestOrigin(origin, next);
}
