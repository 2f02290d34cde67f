import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
  parseApiKey,
} from './api-key-format.js';

describe('API key format', () => {
  it('shows its type and mode and carries a valid checksum', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    expect(live).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    expect(parseApiKey(live)).toEqual({ mode: 'live' });
    expect(parseApiKey(test)).toEqual({ mode: 'test' });
    expect(looksLikeApiKey(live)).toBe(true);
    expect(displayPrefix(live)).toBe(live.slice(0, 12));
  });

  it('is different every time', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey('live')));
    expect(keys.size).toBe(1000);
  });

  it('rejects any single-character change without a database look-up', () => {
    const key = generateApiKey('live');
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: key.length - 1 }),
        fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'),
        (index, char) => {
          fc.pre(key[index] !== char);
          expect(parseApiKey(key.slice(0, index) + char + key.slice(index + 1))).toBeNull();
        },
      ),
    );
  });

  it('rejects truncated, extended and foreign strings', () => {
    const key = generateApiKey('test');
    for (const bad of [
      key.slice(0, -1),
      `${key}A`,
      key.replace('sk_test_', 'sk_prod_'),
      'Bearer x',
      '',
      'eyJhbGciOi.x.y',
    ]) {
      expect(parseApiKey(bad)).toBeNull();
    }
  });

  it('is stored as its SHA-256 (FIPS 180-2 test vector)', () => {
    expect(hashApiKey('abc').toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
