/** Longest target description, in characters. */
export const MAX_TARGET_DESCRIPTION_LENGTH = 2000;
/** Descriptors one target may carry, and the longest one. */
export const MAX_TARGET_DESCRIPTORS = 50;
export const MAX_TARGET_DESCRIPTOR_LENGTH = 64;
/** Photos one target may carry. */
export const MAX_TARGET_PHOTOS = 5;
/** Longest photo URL accepted. */
export const MAX_TARGET_PHOTO_URL_LENGTH = 2048;
/** Largest photo fetched (never more than REFERENCE_MATERIAL_MAX_BYTES either). */
export const MAX_TARGET_PHOTO_BYTES = 10 * 1024 * 1024;
/** Longest a photo's fetch may take (never more than REFERENCE_MATERIAL_TIMEOUT_MS either): the request waits for it. */
export const MAX_TARGET_PHOTO_FETCH_MS = 10_000;
/** The image types a target photo may be, by its sniffed content. */
export const TARGET_PHOTO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type TargetPhotoType = (typeof TARGET_PHOTO_TYPES)[number];

export type TargetPhotoStatus = 'fetched' | 'failed';

/** A photo of a target as stored, without its bytes. */
export interface TargetPhoto {
  id: string;
  position: number;
  sourceUrl: string;
  status: TargetPhotoStatus;
  /** The sniffed type when fetched; null when it failed. */
  contentType: TargetPhotoType | null;
  width: number | null;
  height: number | null;
  /** Why it failed, in one sentence; null when fetched. */
  failure: string | null;
}

/** A target of an organisation's pool (per tenant), with its photos in the order given. */
export interface Target {
  id: string;
  organizationId: string;
  mode: string;
  description: string;
  descriptors: string[];
  latitude: number | null;
  longitude: number | null;
  photos: TargetPhoto[];
  createdAt: Date;
}

/** A new target as the caller sends it (unchecked: the service checks and normalises it). */
export interface NewTargetInput {
  description?: unknown;
  descriptors?: unknown;
  coordinates?: { latitude: number; longitude: number } | null;
  photos?: unknown;
}

/** A new target, checked and normalised. */
export interface NewTarget {
  description: string;
  descriptors: string[];
  coordinates: { latitude: number; longitude: number } | null;
  photoUrls: string[];
}

/** A photo read from its source: the stored fields and, when fetched, its bytes. */
export interface ReadTargetPhoto {
  status: TargetPhotoStatus;
  contentType: TargetPhotoType | null;
  width: number | null;
  height: number | null;
  failure: string | null;
  bytes: Buffer | null;
}

/** A stored photo's bytes and type, to serve. */
export interface TargetPhotoContent {
  contentType: TargetPhotoType;
  bytes: Buffer;
}

/**
 * A target as judging reads it (drawn as a decoy, or the true target):
 * what a judge is shown, with the ids of its photos. Ids are the stored UUIDs.
 */
export interface PoolTarget {
  id: string;
  description: string;
  descriptors: string[];
  latitude: number | null;
  longitude: number | null;
  photos: { id: string; status: TargetPhotoStatus; contentType: TargetPhotoType | null }[];
}
