import { createHash } from 'node:crypto';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { Principal } from '#common';
import { AppSettings } from '#config';
import { RedisService } from '#queue';
import { SigningKeyService } from './signing-keys.service.js';

/** What an access token's signature and claims proved, kept until the token expires. */
export interface VerifiedToken {
  readonly principal: Readonly<Principal>;
  /** The key that signed it: the entry is used only while that key is still published. */
  readonly kid: string;
  /** The grant of a person's token (checked against RevokedGrants on every use); null for client_credentials. */
  readonly grantId: string | null;
  /** The token's `exp`, in ms: the entry is never used at or after it. */
  readonly expiresAt: number;
}

export interface TokenCacheUsage {
  entries: number;
  bytes: number;
  maxEntries: number;
  maxBytes: number;
  hits: number;
  misses: number;
}

/**
 * What an entry costs beyond the characters of its strings: the LRU's slots,
 * the entry and principal objects, the scopes array and the strings' headers.
 * Set so the estimate stays above what bench/token-cache.mjs measures (about
 * 1.46 KB an entry for the bench's token of 15 scopes, estimated 1.6 KB).
 */
const ENTRY_OVERHEAD_BYTES = 700;
const SCOPE_OVERHEAD_BYTES = 40;

/**
 * Access tokens this process verified, by the SHA-256 of the whole token, so
 * a caller reusing a token for its lifetime pays the ES256 verification once
 * per API process rather than on every request.
 *
 * It holds only what the signature proves, never longer than the token's
 * `exp`, and an entry is used only while its signing key is still published
 * here — the same key set a verification would use. Everything that can end
 * a token before it expires is checked after the cache exactly as before it
 * existed: a revoked grant (Redis, every request), a disabled or removed
 * person (the database, every request), so none of them waits for the cache.
 * A change of the key set (a rotation, a withdrawn key) is announced on Redis
 * (`SIGNING_KEYS_CHANGED`): every instance re-reads its keys at once, which
 * both refuses a withdrawn key's cached tokens and starts signing with its
 * replacement.
 *
 * Bounded by ACCESS_TOKEN_CACHE_ENTRIES entries and ACCESS_TOKEN_CACHE_MB of
 * estimated memory, least recently used first out; ACCESS_TOKEN_CACHE_ENTRIES=0
 * turns it off (every request verifies its token).
 */
@Injectable()
export class VerifiedTokenCache implements OnModuleInit {
  private readonly logger = new Logger(VerifiedTokenCache.name);
  private readonly entries: LRUCache<string, VerifiedToken> | null;
  /** Lookups answered from memory, and those that had to verify (for /metrics). */
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly keys: SigningKeyService,
    private readonly redis: RedisService,
    settings: AppSettings,
  ) {
    const { entries, maxBytes } = settings.accessTokenCache;
    this.entries =
      entries === 0
        ? null
        : new LRUCache<string, VerifiedToken>({
            max: entries,
            maxSize: maxBytes,
            sizeCalculation: (entry, key) => entryBytes(key, entry),
          });
  }

  async onModuleInit(): Promise<void> {
    await this.redis.listen(this.keys.changesChannel, {
      message: () => this.keySetChanged(),
      // A change announced while the connection was down would be missed: re-read on every (re)connect.
      connected: () => this.keySetChanged(),
    });
  }

  /** False with ACCESS_TOKEN_CACHE_ENTRIES=0: every request verifies its token. */
  get enabled(): boolean {
    return this.entries !== null;
  }

  /** The cache's key for a token: its SHA-256 (a part of it, say the signature, could be reused with other claims). */
  static keyOf(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  /** The verified token under `key`, while it has not expired and its key is still published. */
  get(key: string): VerifiedToken | null {
    const entry = this.entries?.get(key);
    if (entry !== undefined && entry.expiresAt > Date.now() && this.keys.isPublished(entry.kid)) {
      this.hits += 1;
      return entry;
    }
    if (entry !== undefined) this.entries!.delete(key);
    this.misses += 1;
    return null;
  }

  set(key: string, entry: VerifiedToken): void {
    const ttl = entry.expiresAt - Date.now();
    if (this.entries === null || ttl <= 0) return;
    this.entries.set(key, entry, { ttl });
  }

  /** How full it is (entries, estimated bytes) and how often it answered (for /metrics, the bench, the tests). */
  usage(): TokenCacheUsage {
    return {
      entries: this.entries?.size ?? 0,
      bytes: this.entries?.calculatedSize ?? 0,
      maxEntries: this.entries?.max ?? 0,
      maxBytes: this.entries?.maxSize ?? 0,
      hits: this.hits,
      misses: this.misses,
    };
  }

  private keySetChanged(): void {
    this.keys
      .reloadAnnounced()
      .catch((error: unknown) =>
        this.logger.error(
          { err: error },
          'could not re-read the signing keys after a change was announced; retrying on the next unknown kid',
        ),
      );
  }
}

/** An estimate of what an entry holds in memory (V8 stores these strings one byte a character). */
function entryBytes(key: string, entry: VerifiedToken): number {
  const { principal } = entry;
  let bytes = ENTRY_OVERHEAD_BYTES + key.length + entry.kid.length + (entry.grantId?.length ?? 0);
  bytes += principal.subject.length + principal.organizationId.length;
  for (const scope of principal.scopes) bytes += SCOPE_OVERHEAD_BYTES + scope.length;
  return bytes;
}
