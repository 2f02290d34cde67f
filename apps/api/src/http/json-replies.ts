import type { Response } from 'express';

/** The Content-Type Express gives `res.json`, charset and all. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Writes a controller's object as JSON, exactly as Express's `res.json`
 * would, when nothing about the response needs Express to decide: `res.json`
 * then `res.send` look up the application's JSON settings, build the
 * Content-Type twice (mime-types, content-type), test freshness and read
 * headers back, some 15 µs per response on a slow machine. Returns false,
 * writing nothing, in every other case, which Express or Nest then handles as
 * before: a body that is not a plain object or array (a StreamableFile, a
 * Buffer, an Error, an instance of a class); a status without a body (204,
 * 205, 304); a conditional request
 * (If-None-Match or If-Modified-Since: Express may answer 304, even to
 * `If-None-Match: *` without an ETag); a response that already has a
 * Content-Type or Transfer-Encoding; an application that sets `json
 * replacer`, `json spaces`, `json escape` or ETags.
 */
export function replyJson(response: Response, body: unknown, statusCode?: number): boolean {
  if (!plainData(body) || !plainJsonApplication(response)) return false;
  const { headers } = response.req;
  if (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) {
    return false;
  }
  const status = statusCode ?? response.statusCode;
  if (status === 204 || status === 205 || status === 304) return false;
  if (response.hasHeader('content-type') || response.hasHeader('transfer-encoding')) return false;
  // Objects with a toJSON of their own may answer undefined; Express would then send no body.
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) return false;
  response.statusCode = status;
  response.setHeader('Content-Type', JSON_CONTENT_TYPE);
  response.setHeader('Content-Length', Buffer.byteLength(text));
  if (response.req.method === 'HEAD') response.end();
  else response.end(text);
  return true;
}

/** An array, or an object made by a literal (or with no prototype): what mappers return. */
function plainData(body: unknown): body is object {
  if (typeof body !== 'object' || body === null) return false;
  if (Array.isArray(body)) return true;
  const prototype = Object.getPrototypeOf(body) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Whether the application leaves JSON and ETags as Express's defaults (settings: a few lookups). */
function plainJsonApplication(response: Response): boolean {
  const { app } = response;
  return (
    app.get('json replacer') === undefined &&
    app.get('json spaces') === undefined &&
    !app.enabled('json escape') &&
    typeof app.get('etag fn') !== 'function'
  );
}
