import { imageDimensions, mediaTypeEssence, sniffContentType } from '#common';
import { TARGET_PHOTO_TYPES, type ReadTargetPhoto, type TargetPhotoType } from './target.js';

const ACCEPTED: ReadonlySet<string> = new Set(TARGET_PHOTO_TYPES);
/** Longest parser message kept in a failure. */
const MESSAGE_LIMIT = 200;

/** A photo that could not be fetched: why, and nothing else. */
export function unfetchedPhoto(failure: string): ReadTargetPhoto {
  return { status: 'failed', contentType: null, width: null, height: null, failure, bytes: null };
}

/**
 * What a fetched body is, as a target photo: its type sniffed from the bytes
 * (the server's Content-Type only names the mismatch in the failure), one of
 * PNG, JPEG, WebP or GIF, measured. Never throws: anything else is a failed
 * photo saying why, and its bytes are not kept.
 */
export async function readTargetPhoto(
  bytes: Buffer,
  declaredType: string | null,
): Promise<ReadTargetPhoto> {
  const sniffed = await sniffContentType(bytes);
  if (bytes.length === 0) return unfetchedPhoto('the body is empty, not an image');
  if (sniffed === null || !ACCEPTED.has(sniffed)) {
    const declared = mediaTypeEssence(declaredType);
    const claim = declared !== null && declared !== sniffed ? ` (declared ${declared})` : '';
    return unfetchedPhoto(
      `the content is ${sniffed ?? 'of no type we recognise'}${claim}, not a PNG, JPEG, WebP or GIF image`,
    );
  }
  try {
    const { width, height } = imageDimensions(bytes);
    return {
      status: 'fetched',
      contentType: sniffed as TargetPhotoType,
      width,
      height,
      failure: null,
      bytes,
    };
  } catch (error) {
    return unfetchedPhoto(`the image could not be read: ${messageOf(error)}`);
  }
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.replace(/\s+/g, ' ').trim() || 'unknown error';
  return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT - 1)}…` : line;
}
