import { TextDecoder } from 'node:util';
import { AppError } from '#common';
import type { FieldIssue } from './import-row.js';

/** The two forms an import body takes, by their media types. */
export const IMPORT_MEDIA_TYPES = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
} as const;
export type ImportFormat = keyof typeof IMPORT_MEDIA_TYPES;

/** Rows one import may hold, valid or not (blank lines aside). */
export const MAX_IMPORT_ROWS = 100_000;

/** One data row as read from the body: its parsed value, or why it could not be read. */
export type SourceRow =
  { line: number; value: Record<string, unknown> } | { line: number; issue: FieldIssue };

/**
 * The body as text, chunk by chunk, never held whole: at most `maxBytes`
 * bytes (more is PAYLOAD_TOO_LARGE, however far in), strictly UTF-8 (a
 * binary upload is refused naming `body`, not read as replacement
 * characters), a byte order mark at its start dropped (spreadsheets write one).
 */
export async function* bodyText(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw importTooLarge(maxBytes);
    const text = decode(decoder, chunk, bytes - chunk.byteLength, true);
    if (text !== '') yield text;
  }
  const rest = decode(decoder, undefined, bytes, false);
  if (rest !== '') yield rest;
}

function decode(
  decoder: TextDecoder,
  chunk: Uint8Array | undefined,
  offset: number,
  stream: boolean,
): string {
  try {
    return decoder.decode(chunk, { stream });
  } catch {
    throw AppError.invalid(
      'body',
      `is not UTF-8 text (an invalid byte sequence after byte ${offset}): send NDJSON or CSV encoded as UTF-8`,
    );
  }
}

/** Too many bytes, as the error names it. */
export function importTooLarge(maxBytes: number): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The import is larger than ${maxBytes} bytes; nothing was stored`,
    {
      field: 'body',
      issue: `larger than ${maxBytes} bytes, the most one import may hold here: split it`,
      suggested_value: maxBytes,
    },
  );
}

/** Too many rows, as the error names it. */
export function importTooManyRows(): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The import holds more than ${MAX_IMPORT_ROWS} rows; nothing was stored`,
    {
      field: 'body',
      issue: `holds more than ${MAX_IMPORT_ROWS} rows, the most one import may hold: split it`,
      suggested_value: MAX_IMPORT_ROWS,
    },
  );
}
