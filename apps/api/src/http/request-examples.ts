import { applyDecorators, type Type } from '@nestjs/common';
import { ApiBody, ApiResponse } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';

export interface RequestExample {
  summary: string;
  description?: string;
  value: Record<string, unknown>;
}

/** Named examples of one request body; Swagger UI offers them in a list. */
export type RequestExamples = Record<string, RequestExample>;

/**
 * Documents a JSON request body with curated examples. Swagger UI's "Try it
 * out" sends the chosen example instead of one it makes up from the schema
 * (which would hold every optional field at once, `target` and `cue`
 * together say), so each example must be a request the server accepts as it
 * stands — test/openapi-examples.e2e-spec.ts sends every one of them.
 */
export function ApiJsonBody(type: Type, examples: RequestExamples) {
  return ApiBody({ type, examples });
}

/**
 * What a route reading a JSON body answers before it looks at the body: 413
 * past the body limit, 415 when the body is not JSON.
 */
export function ApiJsonBodyRefusals() {
  return applyDecorators(
    ApiResponse({ status: 413, description: 'Body too large', type: ErrorEnvelopeDto }),
    ApiResponse({ status: 415, description: 'Body is not JSON', type: ErrorEnvelopeDto }),
  );
}
