/**
 * One item of an analysis's reference material as the worker read it: what
 * was fetched (hash, size, sniffed type) and what could be read from it.
 * Stored with the analysis and shown on its status read, field names as in
 * the API.
 */
export type MaterialKind = 'photo' | 'document';

export interface PhotoExif {
  /** ISO 8601 UTC, or null when the photo carries no capture time. */
  captured_at: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface MaterialItem {
  url: string;
  kind: MaterialKind;
  /** `failed`: not fetched, or not what its kind must be (a "photo" that is no image). */
  status: 'fetched' | 'failed';
  /** Why it failed, in one sentence; null when fetched. */
  error: string | null;
  /** Hex SHA-256 of the bytes received; null when nothing complete was received. */
  sha256: string | null;
  size_bytes: number | null;
  /** Sniffed from the bytes (the declared type is not trusted); null when unknown. */
  content_type: string | null;
  /** Photos: pixel dimensions and EXIF facts. */
  width?: number | null;
  height?: number | null;
  exif?: PhotoExif | null;
  /** Documents: page count (1 for plain text) and the start of the extracted text. */
  pages?: number | null;
  text_excerpt?: string | null;
}
