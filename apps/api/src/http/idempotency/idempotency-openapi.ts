import type { OpenAPIObject } from '@nestjs/swagger';
import { IDEMPOTENCY_WINDOW_HOURS } from '#idempotency';
import { isStreamedBodyPath } from '../streamed-bodies.js';

const CONFLICT =
  'CONFLICT naming `Idempotency-Key`: the key was used with a different request or by another credential, or its first request is still running (`Retry-After`)';

/**
 * Adds the `Idempotency-Key` header, and its 409, to every authenticated
 * POST of the document: the interceptor serves them all, so the document
 * says so in one place rather than on each route.
 */
export function documentIdempotency(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    const operation = item.post;
    // A route that streams its body ignores the key (streamed-bodies.ts), so it is not offered.
    if (!operation?.security?.length || isStreamedBodyPath(path)) continue;
    operation.parameters = [
      ...(operation.parameters ?? []),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        description: `Makes retries safe: the first successful response to this key (with this route and body) is kept for ${IDEMPOTENCY_WINDOW_HOURS} hours and returned again, with \`Idempotent-Replayed: true\`, to a retry by the same credential, which does not run again. The same key with another request, or from another credential, → 409. Keys are per organisation and mode; stored responses are encrypted, since they may hold a secret shown once.`,
      },
    ];
    const existing = operation.responses['409'] as { description?: string } | undefined;
    operation.responses['409'] = existing
      ? { ...existing, description: `${existing.description ?? ''}; or ${CONFLICT}` }
      : { description: CONFLICT, content: errorContent(document) };
  }
}

function errorContent(document: OpenAPIObject) {
  const hasEnvelope = document.components?.schemas?.ErrorEnvelopeDto !== undefined;
  return hasEnvelope
    ? { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelopeDto' } } }
    : undefined;
}
