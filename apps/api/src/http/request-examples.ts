import type { Type } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';

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
