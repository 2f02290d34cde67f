import { createHash } from 'node:crypto';
import { readPdf, readText, type DocumentFacts } from './document-reading.js';
import type { MaterialItem, MaterialKind } from './material-item.js';
import { PHOTO_TYPES, readPhoto, type PhotoFacts } from './photo-reading.js';
import { mediaTypeEssence, refineContentType, sniffContentType } from '#common';

const DOCUMENT_TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/csv']);
const PHOTO_NAMES = 'JPEG, PNG, WebP, GIF, TIFF, HEIC, AVIF or BMP';
/** Longest parser message kept in an item's error. */
const MESSAGE_LIMIT = 200;

/** An item that was not fetched: nothing received, so no hash, size or type. */
export function unfetchedItem(url: string, kind: MaterialKind, error: string): MaterialItem {
  return {
    url,
    kind,
    status: 'failed',
    error,
    sha256: null,
    size_bytes: null,
    content_type: null,
    ...noFacts(kind),
  };
}

/**
 * What a complete body is, as an item of `kind`: hashed and sized, its type
 * sniffed from the bytes (the declared type only names the mismatch in an
 * error), then read as a photo or a document. Never throws: content that is
 * not what its kind must be, or that cannot be parsed, is a failed item.
 */
export async function readMaterial(
  url: string,
  kind: MaterialKind,
  bytes: Buffer,
  declaredType: string | null,
): Promise<MaterialItem> {
  const received = {
    url,
    kind,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size_bytes: bytes.length,
  };
  let contentType: string | null = null;
  try {
    contentType = refineContentType(await sniffContentType(bytes), declaredType);
    const facts =
      kind === 'photo'
        ? await photoFacts(bytes, contentType, declaredType)
        : await documentFacts(bytes, contentType, declaredType);
    if (typeof facts === 'string') return failed(facts);
    return { ...received, status: 'fetched', error: null, content_type: contentType, ...facts };
  } catch (error) {
    return failed(`the content could not be read: ${messageOf(error)}`);
  }

  function failed(error: string): MaterialItem {
    return {
      ...received,
      status: 'failed',
      error,
      content_type: contentType,
      ...noFacts(kind),
    };
  }
}

/** The photo's facts, or why the bytes are not a photo we read. */
async function photoFacts(
  bytes: Buffer,
  contentType: string | null,
  declaredType: string | null,
): Promise<PhotoFacts | string> {
  if (contentType === null || !contentType.startsWith('image/')) {
    return `${theContentIs(contentType, declaredType)}, not an image`;
  }
  if (!PHOTO_TYPES.has(contentType)) {
    return `the content is ${contentType}, an image type that is not read (${PHOTO_NAMES} are)`;
  }
  try {
    return await readPhoto(bytes);
  } catch (error) {
    return `the image could not be read: ${messageOf(error)}`;
  }
}

/** The document's facts, or why the bytes are not a document we read. */
async function documentFacts(
  bytes: Buffer,
  contentType: string | null,
  declaredType: string | null,
): Promise<DocumentFacts | string> {
  if (contentType === 'application/pdf') {
    try {
      return await readPdf(bytes);
    } catch (error) {
      return `the PDF could not be read: ${messageOf(error)}`;
    }
  }
  if (contentType !== null && DOCUMENT_TEXT_TYPES.has(contentType)) return readText(bytes);
  return `${theContentIs(contentType, declaredType)}, not a PDF or a text document`;
}

/** "the content is text/html (declared image/jpeg)": both types when they differ. */
function theContentIs(contentType: string | null, declaredType: string | null): string {
  const declared = mediaTypeEssence(declaredType);
  const shown = contentType ?? 'of no type we recognise';
  return declared !== null && declared !== contentType
    ? `the content is ${shown} (declared ${declared})`
    : `the content is ${shown}`;
}

function noFacts(kind: MaterialKind): Partial<MaterialItem> {
  return kind === 'photo'
    ? { width: null, height: null, exif: null }
    : { pages: null, text_excerpt: null };
}

/** A parser's message, one line and short: it ends up in a stored, shown item. */
function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.replace(/\s+/g, ' ').trim() || 'unknown error';
  return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT - 1)}…` : line;
}
