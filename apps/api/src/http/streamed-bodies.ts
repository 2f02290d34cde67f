import type { Request } from 'express';
import { MAX_SKETCH_BYTES, MAX_SKETCHES } from '#analysts';
import { AppError } from '#common';
import { IMPORT_MEDIA_TYPES } from '#history';

/**
 * Routes that read their own body, as a stream, with the media types each
 * takes. Nothing parses or buffers such a body before the route
 * (BODY_LIMIT does not apply: the route bounds it), and the Idempotency-Key
 * interceptor leaves it out, since it cannot hash a body it has not read.
 */
const STREAMED_BODIES: Readonly<Record<string, readonly string[]>> = {
  '/v2/history/import': Object.values(IMPORT_MEDIA_TYPES),
};

/** What a multipart/form-data body may hold: the limits readMultipartForm enforces. */
export interface MultipartLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxFields: number;
  maxFieldBytes: number;
}

/**
 * A submission's form: up to MAX_SKETCHES `sketches` of MAX_SKETCH_BYTES each,
 * and its other fields (descriptors, notes, coordinates…) as text.
 */
export const RESULTS_UPLOAD_LIMITS: MultipartLimits = {
  maxFiles: MAX_SKETCHES,
  maxFileBytes: MAX_SKETCH_BYTES,
  maxFields: 100,
  maxFieldBytes: 64 * 1024,
};

/**
 * Routes that take multipart/form-data as well as JSON: analysts' submissions
 * with their sketches. Such a body is left unread for the route
 * (readMultipartForm); a JSON body is parsed as everywhere. Every other route
 * refuses multipart (415).
 */
const MULTIPART_ROUTES: readonly { path: RegExp; limits: MultipartLimits }[] = [
  {
    path: /^\/v2\/(?:sessions|analysis|dowsing\/queries)\/[^/]+\/results\/?$/i,
    limits: RESULTS_UPLOAD_LIMITS,
  },
];

export const MULTIPART_MEDIA_TYPE = 'multipart/form-data';

/**
 * The limits of this request's multipart body when it is a POST of
 * multipart/form-data to a route that takes one; null otherwise (its body is
 * parsed, or refused, as usual).
 */
export function multipartUploadLimits(request: Request): MultipartLimits | null {
  if (request.method !== 'POST') return null;
  if (mediaTypeOf(request.headers['content-type']) !== MULTIPART_MEDIA_TYPE) return null;
  return MULTIPART_ROUTES.find((route) => route.path.test(request.path))?.limits ?? null;
}

/** Express matches paths case-insensitively and with or without a trailing slash. */
function pathKey(path: string): string {
  return path.toLowerCase().replace(/\/+$/, '') || '/';
}

/** The media types the route of this POST streams, or null when its body is parsed as usual. */
export function streamedBodyTypes(request: Request): readonly string[] | null {
  if (request.method !== 'POST') return null;
  return STREAMED_BODIES[pathKey(request.path)] ?? null;
}

/** Whether the operation at this path of the OpenAPI document streams its body. */
export function isStreamedBodyPath(path: string): boolean {
  return pathKey(path) in STREAMED_BODIES;
}

/** A Content-Type header's media type, lower case, without its parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The `charset` parameter of a Content-Type header, lower case, or null. */
export function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

/**
 * Why this streamed request's body cannot be read, or null: a media type the
 * route does not take, a charset other than UTF-8, or a compressed body.
 */
export function streamedBodyProblem(
  request: Request,
  types: readonly string[],
): { field: string; issue: string } | null {
  const contentType = request.headers['content-type'];
  if (!types.includes(mediaTypeOf(contentType))) {
    return { field: 'Content-Type', issue: `send ${types.join(' or ')}` };
  }
  const charset = charsetOf(contentType);
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
    return { field: 'Content-Type', issue: 'send UTF-8 text (charset=utf-8, or no charset)' };
  }
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    return { field: 'Content-Encoding', issue: 'send the body uncompressed' };
  }
  return null;
}

/**
 * Runs `work` on the body of a streamed request, read chunk by chunk as it
 * arrives. Whatever `work` leaves unread when it fails (a limit passed, a
 * refused header) is read off and dropped before the error is answered, as
 * the JSON parser does, so the client can read the answer instead of
 * having its upload cut. A client that hangs up mid-body is told so (if it
 * still listens): nothing of its body was used.
 */
export async function readStreamedBody<T>(
  request: Request,
  work: (body: AsyncIterable<Uint8Array>, declaredBytes: number | null) => Promise<T>,
): Promise<T> {
  const length = request.headers['content-length'];
  const declaredBytes = length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : null;
  try {
    // Leaving the loop early must not destroy the request: its socket still carries the answer.
    return await work(request.iterator({ destroyOnReturn: false }), declaredBytes);
  } catch (error) {
    if (!request.complete && (request.destroyed || request.readableAborted)) {
      throw AppError.invalid('body', 'was cut off before its end: nothing of it was stored');
    }
    await drain(request);
    throw error;
  }
}

/** Reads off and drops what is left of a body, so the client reads the answer instead of having its upload cut. */
export function drain(request: Request): Promise<void> {
  if (request.complete || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    request
      .once('end', resolve)
      .once('close', resolve)
      .once('error', () => resolve());
    request.resume();
  });
}
