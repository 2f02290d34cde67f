import { describe, expect, it } from 'vitest';
import type { AppSettings } from '#config';
import type { RedisService } from '#queue';
import type { SigningKeyService } from './signing-keys.service.js';
import { VerifiedTokenCache, type VerifiedToken } from './verified-token-cache.js';

const published = new Set(['kid-1']);
const keys = { isPublished: (kid: string) => published.has(kid) } as unknown as SigningKeyService;

function cache(entries: number, maxBytes = 1024 * 1024): VerifiedTokenCache {
  const settings = { accessTokenCache: { entries, maxBytes } } as unknown as AppSettings;
  return new VerifiedTokenCache(keys, {} as RedisService, settings);
}

function verified(overrides: Partial<VerifiedToken> = {}): VerifiedToken {
  return {
    principal: {
      credential: 'access_token',
      subject: 'client-abc',
      organizationId: '0190f0a0-0000-7000-8000-000000000001',
      mode: 'live',
      scopes: ['sessions:read', 'sessions:write'],
    },
    kid: 'kid-1',
    grantId: null,
    expiresAt: Date.now() + 60_000,
    ...overrides,
  };
}

describe('VerifiedTokenCache', () => {
  it('keys a token by the SHA-256 of all of it', () => {
    expect(VerifiedTokenCache.keyOf('a.b.c')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(VerifiedTokenCache.keyOf('a.b.c')).not.toBe(VerifiedTokenCache.keyOf('a.x.c'));
  });

  it('gives back what was verified until the token expires', () => {
    const tokens = cache(10);
    const entry = verified();
    tokens.set('k', entry);
    expect(tokens.get('k')).toBe(entry);
    tokens.set('old', verified({ expiresAt: Date.now() - 1 }));
    expect(tokens.get('old')).toBeNull();
    expect(tokens.usage()).toMatchObject({ entries: 1, hits: 1, misses: 1 });
  });

  it('drops an entry whose signing key is no longer published', () => {
    const tokens = cache(10);
    tokens.set('k', verified({ kid: 'kid-2' }));
    published.add('kid-2');
    expect(tokens.get('k')).not.toBeNull();
    published.delete('kid-2');
    expect(tokens.get('k')).toBeNull();
    expect(tokens.usage().entries).toBe(0);
  });

  it('holds at most its entries, least recently used out first', () => {
    const tokens = cache(3);
    for (const key of ['a', 'b', 'c']) tokens.set(key, verified());
    tokens.get('a');
    tokens.set('d', verified());
    expect(['a', 'b', 'c', 'd'].map((key) => tokens.get(key) !== null)).toEqual([
      true,
      false,
      true,
      true,
    ]);
    expect(tokens.usage()).toMatchObject({ entries: 3, maxEntries: 3 });
  });

  it('holds at most its bytes, counting what each entry holds', () => {
    const tokens = cache(1000, 4000);
    for (let i = 0; i < 100; i += 1) tokens.set(`key-${i}`, verified());
    const { entries, bytes, maxBytes } = tokens.usage();
    expect(bytes).toBeLessThanOrEqual(maxBytes);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(100);
    // A token of many scopes costs more than one of two.
    const wide = cache(10);
    wide.set('narrow', verified());
    const narrow = wide.usage().bytes;
    wide.set(
      'wide',
      verified({ principal: { ...verified().principal, scopes: Array(20).fill('x:y') } }),
    );
    expect(wide.usage().bytes - narrow).toBeGreaterThan(narrow);
  });

  it('keeps nothing when turned off (ACCESS_TOKEN_CACHE_ENTRIES=0)', () => {
    const tokens = cache(0);
    expect(tokens.enabled).toBe(false);
    tokens.set('k', verified());
    expect(tokens.get('k')).toBeNull();
    expect(tokens.usage()).toMatchObject({ entries: 0, bytes: 0, maxEntries: 0, maxBytes: 0 });
  });
});
