import { createHash } from 'node:crypto';
import { AppError, imageDimensions, sniffContentType, sniffText } from '#common';

/** Largest sketch accepted, in bytes. */
export const MAX_SKETCH_BYTES = 5 * 1024 * 1024;
/** Sketches one submission may carry. */
export const MAX_SKETCHES = 10;
export const SKETCH_TYPES = ['image/png', 'image/jpeg', 'image/svg+xml'] as const;
export type SketchType = (typeof SKETCH_TYPES)[number];

/** A sketch ready to store: its type read from the bytes, the bytes to keep, their SHA-256 (hex). */
export interface PreparedSketch {
  contentType: SketchType;
  bytes: Buffer;
  sha256: string;
}

/**
 * An uploaded sketch, checked by its content (never by the type or name it
 * was sent with): PNG and JPEG are kept byte for byte once they measure as
 * images; SVG is parsed and sanitised (sanitiseSvg) and the clean document is
 * what is kept. Anything else — HTML, PDF, an empty file, one over 5 MiB, an
 * SVG that does not parse or has no drawing left — is refused naming
 * `sketches[index]`.
 */
export async function prepareSketch(bytes: Uint8Array, index: number): Promise<PreparedSketch> {
  const field = `sketches[${index}]`;
  if (bytes.length === 0) throw AppError.invalid(field, 'is empty');
  if (bytes.length > MAX_SKETCH_BYTES) {
    throw AppError.invalid(field, `is larger than ${MAX_SKETCH_BYTES / 1024 / 1024} MiB`);
  }
  const sniffed = await sniffContentType(bytes);
  if (sniffed === 'image/png' || sniffed === 'image/jpeg') {
    try {
      imageDimensions(bytes);
    } catch {
      throw AppError.invalid(
        field,
        `is not a readable ${sniffed === 'image/png' ? 'PNG' : 'JPEG'} image (cut short or damaged)`,
      );
    }
    return prepared(sniffed, Buffer.from(bytes));
  }
  const text = svgText(bytes);
  if (text === null) {
    throw AppError.invalid(
      field,
      `must be a PNG, JPEG or SVG image; its content is ${sniffed ?? 'of no type we recognise'}`,
    );
  }
  // Loaded on the first SVG: jsdom is about 23 MB of heap, which the API would otherwise carry
  // from its start, and mark on every full garbage collection, for a rare upload.
  const { sanitiseSvg } = await import('./svg-sanitising.js');
  const clean = sanitiseSvg(text);
  if (clean === null) {
    throw AppError.invalid(
      field,
      'is an SVG with no drawing left once scripts and external references are removed',
    );
  }
  return prepared('image/svg+xml', Buffer.from(clean, 'utf8'));
}

/**
 * The text of bytes that look like an SVG document: UTF-8 text (not HTML by
 * the sniffing rules) whose first element is `<svg`, after whatever prolog
 * (XML declaration, processing instructions, comments, DOCTYPE). Null for anything else.
 */
function svgText(bytes: Uint8Array): string | null {
  const kind = sniffText(bytes);
  if (kind !== 'text/xml' && kind !== 'text/plain') return null;
  const text = new TextDecoder('utf-8').decode(bytes);
  return startsWithSvg(text) ? text : null;
}

/**
 * Whether the first element after the prolog (XML declaration, processing
 * instructions, comments, DOCTYPE with its internal subset) is `<svg`: one
 * pass with indexOf, never a backtracking pattern over a 5 MiB upload.
 */
function startsWithSvg(text: string): boolean {
  let at = 0;
  for (;;) {
    while (at < text.length && /\s/.test(text[at]!)) at++;
    const end = prologItemEnd(text, at);
    if (end === null) break;
    if (end < 0) return false;
    at = end;
  }
  return /^<svg[\s>/]/i.test(text.slice(at, at + 5));
}

/** Where the prolog item at `at` ends; null when there is none there; -1 when it never ends. */
function prologItemEnd(text: string, at: number): number | null {
  const closing = (marker: string, from: number) => {
    const found = text.indexOf(marker, from);
    return found < 0 ? -1 : found + marker.length;
  };
  if (text.startsWith('<?', at)) return closing('?>', at + 2);
  if (text.startsWith('<!--', at)) return closing('-->', at + 4);
  if (text.slice(at, at + 9).toUpperCase() === '<!DOCTYPE') {
    const bracket = text.indexOf('[', at);
    const close = text.indexOf('>', at);
    if (close < 0) return -1;
    if (bracket < 0 || bracket > close) return close + 1;
    const subsetEnd = text.indexOf(']', bracket);
    return subsetEnd < 0 ? -1 : closing('>', subsetEnd);
  }
  return null;
}

function prepared(contentType: PreparedSketch['contentType'], bytes: Buffer): PreparedSketch {
  return { contentType, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}
