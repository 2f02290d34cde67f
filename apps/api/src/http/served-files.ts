import { StreamableFile } from '@nestjs/common';
import type { Response } from 'express';

/** The types a served upload or fetched image may have. */
const SERVED_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/svg+xml',
  'application/octet-stream',
];

/**
 * Bytes someone uploaded or the service fetched, served inert: typed as
 * sniffed when stored, never re-sniffed by the browser, and nothing in them
 * (an SVG's script, say) may run or load anything.
 */
export function servedFile(
  file: { contentType: string; bytes: Buffer },
  response: Response,
): StreamableFile {
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  response.setHeader('Cache-Control', 'private, no-store');
  return new StreamableFile(file.bytes, {
    type: file.contentType,
    length: file.bytes.length,
    disposition: 'inline',
  });
}

/** The OpenAPI answer of a route that serves such a file. */
export function servedFileResponse(description: string) {
  return {
    description,
    content: Object.fromEntries(
      SERVED_TYPES.map((type) => [type, { schema: { type: 'string' as const, format: 'binary' } }]),
    ),
  };
}
