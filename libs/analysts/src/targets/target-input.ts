import { AppError } from '#common';
import {
  MAX_TARGET_DESCRIPTION_LENGTH,
  MAX_TARGET_DESCRIPTOR_LENGTH,
  MAX_TARGET_DESCRIPTORS,
  MAX_TARGET_PHOTO_URL_LENGTH,
  MAX_TARGET_PHOTOS,
  type NewTarget,
  type NewTargetInput,
} from './target.js';

/**
 * A new target checked and normalised, each refusal naming its field
 * (`descriptors.3`, `photos.1`): the description 1 to 2,000 characters (not
 * blank); descriptors trimmed, lower case, without duplicates (first
 * occurrence kept), each 1 to 64 characters, at most 50; photos at most 5
 * absolute https URLs without credentials or fragment.
 */
export function checkNewTarget(input: NewTargetInput): NewTarget {
  return {
    description: checkDescription(input.description),
    descriptors: normaliseDescriptors(input.descriptors ?? []),
    coordinates: input.coordinates
      ? { latitude: input.coordinates.latitude, longitude: input.coordinates.longitude }
      : null,
    photoUrls: checkPhotoUrls(input.photos ?? []),
  };
}

function checkDescription(value: unknown): string {
  if (value === undefined || value === null) throw AppError.invalid('description', 'required');
  if (typeof value !== 'string') throw AppError.invalid('description', 'must be text');
  if (value.trim() === '') throw AppError.invalid('description', 'must not be blank');
  if (value.length > MAX_TARGET_DESCRIPTION_LENGTH) {
    throw AppError.invalid(
      'description',
      `must be at most ${MAX_TARGET_DESCRIPTION_LENGTH} characters`,
    );
  }
  return value;
}

/** Trimmed, lower case, each once in the order first given. */
export function normaliseDescriptors(value: unknown): string[] {
  if (!Array.isArray(value)) throw AppError.invalid('descriptors', 'must be a list of words');
  if (value.length > MAX_TARGET_DESCRIPTORS) {
    throw AppError.invalid('descriptors', `can hold at most ${MAX_TARGET_DESCRIPTORS} descriptors`);
  }
  const seen = new Set<string>();
  value.forEach((item: unknown, index) => {
    const field = `descriptors.${index}`;
    if (typeof item !== 'string') throw AppError.invalid(field, 'must be text');
    const descriptor = item.trim().toLowerCase();
    if (descriptor === '') throw AppError.invalid(field, 'must not be blank');
    if (descriptor.length > MAX_TARGET_DESCRIPTOR_LENGTH) {
      throw AppError.invalid(field, `must be at most ${MAX_TARGET_DESCRIPTOR_LENGTH} characters`);
    }
    seen.add(descriptor);
  });
  return [...seen];
}

function checkPhotoUrls(value: unknown): string[] {
  if (!Array.isArray(value)) throw AppError.invalid('photos', 'must be a list of https URLs');
  if (value.length > MAX_TARGET_PHOTOS) {
    throw AppError.invalid('photos', `can hold at most ${MAX_TARGET_PHOTOS} photos`);
  }
  return value.map((item: unknown, index) => photoUrl(item, `photos.${index}`));
}

/** An absolute https URL, without credentials (they would be stored and shown) or fragment. */
function photoUrl(value: unknown, field: string): string {
  if (typeof value !== 'string') throw AppError.invalid(field, 'must be an https URL string');
  if (value.length > MAX_TARGET_PHOTO_URL_LENGTH) {
    throw AppError.invalid(field, `must be at most ${MAX_TARGET_PHOTO_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw AppError.invalid(field, 'must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:') throw AppError.invalid(field, 'must use https://');
  if (url.username || url.password) {
    throw AppError.invalid(field, 'must not contain credentials (they would be stored and shown)');
  }
  if (url.hash) throw AppError.invalid(field, 'must not contain a fragment');
  return value;
}
