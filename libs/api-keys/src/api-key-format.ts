import { createHash, randomBytes } from 'node:crypto';
import type { Mode } from '#common';

/**
 * API keys look like `sk_live_<30 base62 chars><6 base62 checksum chars>`.
 * The type and mode are readable at a glance and by secret scanners; 30 random
 * base62 characters carry about 178 bits; the CRC-32 checksum lets us reject a
 * mistyped or truncated key without touching the database.
 */
export const API_KEY_PREFIX = 'sk';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}_(live|test)_([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

function base62(bytes: Buffer, length: number): string {
  let out = '';
  // Rejection sampling keeps every character uniform (256 is not a multiple of 62).
  let pool = bytes;
  let index = 0;
  while (out.length < length) {
    if (index >= pool.length) {
      pool = randomBytes(length * 2);
      index = 0;
    }
    const byte = pool[index++]!;
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

function encodeChecksum(value: number): string {
  let out = '';
  let rest = value >>> 0;
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text)) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export function generateApiKey(mode: Mode): string {
  const body = `${API_KEY_PREFIX}_${mode}_${base62(randomBytes(RANDOM_LENGTH * 2), RANDOM_LENGTH)}`;
  return body + encodeChecksum(crc32(body));
}

/** The mode of a well-formed key with a valid checksum, or null. */
export function parseApiKey(key: string): { mode: Mode } | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  if (encodeChecksum(crc32(body)) !== match[3]) return null;
  return { mode: match[1] as Mode };
}

/** Whether a bearer credential is shaped like one of our API keys rather than a JWT. */
export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith(`${API_KEY_PREFIX}_`);
}

/** Keys carry ~178 bits of entropy, so a fast hash is enough to store them (no salt, no stretching). */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function displayPrefix(key: string): string {
  return key.slice(0, `${API_KEY_PREFIX}_live_`.length + 4);
}
