import type { OpenAPIObject } from '@nestjs/swagger';
import { LIMIT_HEADERS } from './auth.decorator.js';
import { OPERATION_METHODS } from './openapi-operations.js';

/** The headers every response carries (RequestCounting), by name in `components.headers`. */
const EVERY_RESPONSE = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

const ADDRESS_LIMIT =
  'RATE_LIMITED: too many requests a minute from this source address without a valid credential (ANONYMOUS_RATE_PER_ADDRESS); `details.field` is `requests_per_minute_per_address`, with `limit` and `window`, and `Retry-After` says when to try again. A request with a valid credential counts against its organisation instead.';

/**
 * Every request is counted before any route answers it (RequestCounting):
 * every response carries X-RateLimit-Limit, -Remaining and -Reset, and every
 * operation may answer 429 in the error envelope — a public one when its
 * address is over its budget. The document says so here, in one place, for
 * every operation: the headers (from `components.headers`) on each response,
 * and a 429 where the route documents none, or adds to the route's own 429
 * when that is in another media type (the sign-in pages' own 429 is a page).
 */
export function documentRequestLimits(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.headers = {
    ...document.components.headers,
    ...Object.fromEntries(EVERY_RESPONSE.map((name) => [name, LIMIT_HEADERS[name]])),
  };
  const envelope = { schema: { $ref: '#/components/schemas/ErrorEnvelopeDto' } };
  for (const item of Object.values(document.paths)) {
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const responses = operation.responses as Record<
        string,
        {
          description: string;
          headers?: Record<string, unknown>;
          content?: Record<string, unknown>;
        }
      >;
      const limited = responses['429'];
      if (limited === undefined) {
        responses['429'] = {
          description: ADDRESS_LIMIT,
          headers: { 'Retry-After': LIMIT_HEADERS['Retry-After'] },
          content: { 'application/json': envelope },
        };
      } else if (!limited.content?.['application/json']) {
        // A route's own 429 in another media type, or in one it does not name (a page).
        limited.description = `${limited.description}; or ${ADDRESS_LIMIT}`;
        if (limited.content) limited.content['application/json'] = envelope;
      }
      for (const response of Object.values(responses)) {
        response.headers = {
          ...Object.fromEntries(
            EVERY_RESPONSE.map((name) => [name, { $ref: `#/components/headers/${name}` }]),
          ),
          ...response.headers,
        };
      }
    }
  }
}
