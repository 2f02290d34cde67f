import exifr from 'exifr';
import { imageDimensions, ownBuffer } from '#common';
import type { PhotoExif } from './material-item.js';

/** Image types read as photos: what image-size measures and browsers show. */
export const PHOTO_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/tiff',
  'image/heic',
  'image/heif',
  'image/avif',
  'image/bmp',
]);

export interface PhotoFacts {
  /** Pixel dimensions as stored (an EXIF orientation that rotates the picture is not applied). */
  width: number;
  height: number;
  exif: PhotoExif | null;
}

/** Dimensions and EXIF facts of an image of one of PHOTO_TYPES; throws when it cannot be measured. */
export async function readPhoto(bytes: Uint8Array): Promise<PhotoFacts> {
  const own = ownBuffer(bytes);
  const { width, height } = imageDimensions(own);
  return { width, height, exif: await readExif(own) };
}

/**
 * The capture time and place, or null when the image carries no EXIF (or
 * unreadable EXIF: a photo is still a photo without it). Only the TIFF, EXIF
 * and GPS blocks are parsed; dates stay strings so no time zone is guessed.
 */
export async function readExif(bytes: Uint8Array): Promise<PhotoExif | null> {
  let tags: Record<string, unknown> | undefined;
  try {
    tags = (await exifr.parse(bytes, {
      tiff: true,
      exif: true,
      gps: true,
      ifd1: false,
      interop: false,
      makerNote: false,
      userComment: false,
      xmp: false,
      icc: false,
      iptc: false,
      jfif: false,
      ihdr: false,
      reviveValues: false,
      mergeOutput: true,
    })) as Record<string, unknown> | undefined;
  } catch {
    return null;
  }
  // exifr skips damaged segments (its default, silentErrors) and lists them under `errors`.
  if (!tags || Object.keys(tags).every((key) => key === 'errors')) return null;
  return {
    captured_at: capturedAt(tags.DateTimeOriginal, tags.OffsetTimeOriginal),
    latitude: coordinate(tags.latitude, 90),
    longitude: coordinate(tags.longitude, 180),
  };
}

const EXIF_DATE = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/;
const EXIF_OFFSET = /^([+-])(\d{2}):(\d{2})$/;

/**
 * EXIF DateTimeOriginal ("2024:05:17 14:32:10") as ISO 8601 UTC. The tag
 * carries no zone: it is the camera's clock, in whatever zone the camera was
 * set to. With OffsetTimeOriginal ("+02:00", EXIF 2.31) the offset is
 * applied; without it the time is taken as UTC, the only reading that does
 * not depend on where the service runs. Null when absent or not a real date.
 */
export function capturedAt(dateTimeOriginal: unknown, offsetTimeOriginal?: unknown): string | null {
  if (typeof dateTimeOriginal !== 'string') return null;
  const match = EXIF_DATE.exec(dateTimeOriginal.trim());
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // Cameras write "0000:00:00 00:00:00" for an unset clock.
  if (year < 1800 || hour > 23 || minute > 59 || second > 59) return null;
  const utc = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (utc.getUTCMonth() !== month - 1 || utc.getUTCDate() !== day) return null;
  const offset = offsetMinutes(offsetTimeOriginal);
  return new Date(utc.getTime() - (offset ?? 0) * 60_000).toISOString();
}

/** "+02:00" → 120, "-05:30" → -330; null when absent or malformed. */
function offsetMinutes(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = EXIF_OFFSET.exec(value.trim());
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  if (minutes > 14 * 60) return null;
  return match[1] === '-' ? -minutes : minutes;
}

/** Signed decimal degrees (exifr applies the N/S, E/W reference), to 7 decimals (~1 cm). */
function coordinate(value: unknown, limit: number): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) return null;
  return Math.round(value * 1e7) / 1e7;
}
