import { describe, expect, it } from 'vitest';
import { generateScimToken, hashScimToken, isScimTokenShaped } from './scim-token-format.js';

describe('SCIM token format', () => {
  it('is sas_scim_ and 32 random bytes in base64url', () => {
    const token = generateScimToken();
    expect(token).toMatch(/^sas_scim_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice('sas_scim_'.length), 'base64url')).toHaveLength(32);
    expect(isScimTokenShaped(token)).toBe(true);
  });

  it('is different every time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateScimToken()));
    expect(tokens.size).toBe(1000);
  });

  it('refuses truncated, extended and foreign strings', () => {
    const token = generateScimToken();
    for (const bad of [
      token.slice(0, -1),
      `${token}A`,
      token.replace('sas_scim_', 'sas_scin_'),
      `${token.slice(0, -1)}=`,
      'sk_live_0123456789012345678901234567890123456',
      'Bearer x',
      '',
    ]) {
      expect(isScimTokenShaped(bad), bad).toBe(false);
    }
  });

  it('is stored as its SHA-256 (FIPS 180-2 test vector)', () => {
    expect(hashScimToken('abc').toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
