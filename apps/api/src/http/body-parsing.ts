import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { AppError } from '#common';
import { sendError } from './error-translation.js';
import { guardRequestInput } from './input-guards.js';
import { preferLiteralRoutes } from './route-table.js';
import {
  multipartUploadLimits,
  streamedBodyProblem,
  streamedBodyTypes,
} from './streamed-bodies.js';

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
/**
 * The authorization server's routes take form-encoded bodies (OAuth 2.0, HTML
 * forms), and so do SAML assertion consumer services (the IdP's auto-posted
 * form); every other body is JSON.
 */
const FORM_PREFIXES = ['/oauth2/', '/sso/saml/', '/invitations/'];

/**
 * Body parsing is ours rather than Nest's so its errors (malformed JSON, too
 * large, wrong content type) reach the same envelope as every other error.
 * Around it, the checks every request's input passes before any route reads
 * it: a wrong method on a literal path is refused before its body is read,
 * and the parsed body, query and path are guarded (depth, NUL) right after.
 */
export function installBodyParsing(app: Express, limitBytes: number, publicUrl: string): void {
  app.use(preferLiteralRoutes);
  app.use(
    FORM_PREFIXES,
    express.urlencoded({ extended: false, limit: limitBytes, type: FORM_TYPE }),
  );
  const json = express.json({ limit: limitBytes, type: JSON_TYPES, strict: true });
  // A route that streams its body, or a multipart upload to a route that takes one
  // (streamed-bodies.ts), gets it unread.
  app.use((request: Request, response: Response, next: NextFunction) =>
    streamedBodyTypes(request) || multipartUploadLimits(request)
      ? next()
      : json(request, response, next),
  );
  app.use(requireKnownContentType);
  app.use(guardRequestInput);
  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) =>
    sendError(error, request, response, publicUrl),
  );
}

/**
 * A body we did not parse would otherwise reach validation as `{}` and give a
 * misleading error. The OAuth routes answer a wrong content type themselves, in OAuth's error form.
 * A route that streams its body takes only its own media types, with or without a body.
 * multipart/form-data reaches only the routes that take it (submissions with
 * sketches), uncompressed; everywhere else it is refused as any other non-JSON body.
 */
function requireKnownContentType(request: Request, _response: Response, next: NextFunction): void {
  if (multipartUploadLimits(request)) {
    const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding === 'identity') return next();
    return next(
      new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${encoding} is not accepted`, {
        field: 'Content-Encoding',
        issue: 'send the body uncompressed',
      }),
    );
  }
  const streamed = streamedBodyTypes(request);
  if (streamed) {
    const problem = streamedBodyProblem(request, streamed);
    if (!problem) return next();
    const sent = request.headers[problem.field.toLowerCase()] ?? '(none)';
    return next(
      new AppError('UNSUPPORTED_MEDIA_TYPE', `${problem.field} ${sent} is not accepted`, problem),
    );
  }
  const hasBody =
    Number(request.headers['content-length'] ?? 0) > 0 ||
    request.headers['transfer-encoding'] !== undefined;
  const form = FORM_PREFIXES.some((prefix) => request.path.startsWith(prefix));
  if (!hasBody || form || request.is(JSON_TYPES)) return next();
  next(
    new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted`,
      {
        field: 'Content-Type',
        issue: 'send application/json',
      },
    ),
  );
}
