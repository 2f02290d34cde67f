import type { OpenAPIObject } from '@nestjs/swagger';
import { AppError } from '#common';
import { errorEnvelope } from './error-envelope.js';
import { operationsOf } from './openapi-operations.js';
import { rateLimited } from './request-limiter.js';

const ENVELOPE_REF = '#/components/schemas/ErrorEnvelopeDto';
const REQUEST_ID = 'req_01jh2x7v4ke8rbk3a8y0v0d7qz';

interface JsonResponse {
  content?: Record<string, { schema?: { $ref?: string }; example?: unknown; examples?: unknown }>;
}

/** An error of the kind each status answers, as the service raises it; `scopes` and `noun` make it the operation's own. */
function errorFor(
  status: number,
  scopes: readonly string[],
  noun: string,
  parameter: string,
): AppError | null {
  switch (status) {
    case 400:
      return AppError.invalid('target', 'must be 1 to 1000 characters');
    case 401:
      return AppError.unauthorized('access token expired');
    case 403:
      return AppError.forbidden(scopes.length > 0 ? [...scopes] : ['remote-viewing:read']);
    case 404:
      return AppError.notFound(noun, `{${parameter}}`);
    case 409:
      return new AppError('CONFLICT', 'The request conflicts with the current state', {
        field: 'status',
        issue: 'a completed session cannot be cancelled',
      });
    case 413:
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large', {
        field: 'body',
        issue: 'at most 1048576 bytes',
      });
    case 415:
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type', {
        field: 'Content-Type',
        issue: 'send application/json',
      });
    case 429:
      return rateLimited(
        {
          name: 'minute',
          setting: 'requests_per_minute',
          limit: 60,
          used: 61,
          remaining: 0,
          seconds: 60,
          resetSeconds: 42,
        },
        {},
      );
    case 503:
      return new AppError('SERVICE_UNAVAILABLE', 'A dependency is temporarily unavailable', {
        field: 'database',
        issue: 'PostgreSQL cannot be reached; retry after Retry-After seconds',
      });
    default:
      return null;
  }
}

/**
 * Swagger UI showed the same validation body under every error status (the
 * envelope's schema examples). Each error response in the error envelope
 * without an example of its own gets one of its status, made by the code
 * that writes real errors (`errorEnvelope`, with `help_url` and
 * `VALIDATION_ERROR` under /v2): a 403 names the operation's own scopes, a
 * 404 the resource of its last path parameter.
 */
export function documentErrorExamples(document: OpenAPIObject, publicUrl: string): void {
  for (const { path, operation } of operationsOf(document)) {
    const version2 = path.startsWith('/v2/');
    const [noun, parameter] = lastParameter(path);
    const scopes = (operation as { 'x-required-scopes'?: string[] })['x-required-scopes'] ?? [];
    const responses = operation.responses as Record<string, JsonResponse>;
    for (const [status, response] of Object.entries(responses)) {
      const json = response.content?.['application/json'];
      if (json?.schema?.$ref !== ENVELOPE_REF || json.example !== undefined || json.examples) {
        continue;
      }
      const error = errorFor(Number(status), scopes, noun, parameter);
      if (!error) continue;
      // Copies all the way down: a response and its content may be shared between operations.
      responses[status] = {
        ...response,
        content: {
          ...response.content,
          'application/json': {
            ...json,
            example: errorEnvelope(error, REQUEST_ID, version2, publicUrl).body,
          },
        },
      };
    }
  }
}

/** What a path's last parameter names (`{session_id}` a session, `/sketches/{n}` a sketch), and the parameter. */
function lastParameter(path: string): [noun: string, parameter: string] {
  const match = /(?:\/([^/{}]+))?\/\{(\w+)\}[^{]*$/.exec(path);
  if (!match) return ['resource', 'id'];
  const [, segment, parameter] = match;
  if (parameter!.endsWith('_id')) return [parameter!.slice(0, -3), parameter!];
  const singular = (segment ?? 'resource').replace(/(ches|sses)$/, (end) => end.slice(0, -2));
  return [singular.replace(/([^i])s$/, '$1').replace(/-/g, ' '), parameter!];
}
