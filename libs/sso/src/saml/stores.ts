import { createHash } from 'node:crypto';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Cluster, Redis } from 'ioredis';

/**
 * Pending AuthnRequests: node-saml's CacheProvider (request id → issue
 * instant, read to check InResponseTo and removed once answered) plus the
 * RelayState each request was sent with.
 */
export interface SamlRequestStore extends CacheProvider {
  bindRelayState(requestId: string, relayState: string): Promise<void>;
  relayStateOf(requestId: string): Promise<string | null>;
}

/** Assertion ids already consumed, kept until the assertion could no longer be accepted anyway. */
export interface SamlReplayStore {
  /** Records the id for `ttlMs`; false when it was already recorded (a replay). */
  claim(issuer: string, assertionId: string, ttlMs: number): Promise<boolean>;
  seen(issuer: string, assertionId: string): Promise<boolean>;
}

export const DEFAULT_REQUEST_TTL_MS = 10 * 60_000;

/** Ids come from the network: hashed, so a key has a fixed length whatever was sent. */
function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('base64url');
}

export class RedisSamlRequestStore implements SamlRequestStore {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keyPrefix: string,
    readonly ttlMs: number = DEFAULT_REQUEST_TTL_MS,
  ) {}

  async saveAsync(requestId: string, value: string): Promise<CacheItem | null> {
    const saved = await this.redis.set(
      this.key('request', requestId),
      value,
      'PX',
      this.ttlMs,
      'NX',
    );
    return saved === 'OK' ? { value, createdAt: Date.now() } : null;
  }

  getAsync(requestId: string): Promise<string | null> {
    return this.redis.get(this.key('request', requestId));
  }

  async removeAsync(requestId: string | null): Promise<string | null> {
    if (requestId === null) return null;
    const [value] = await Promise.all([
      this.redis.getdel(this.key('request', requestId)),
      this.redis.del(this.key('relay', requestId)),
    ]);
    return value;
  }

  async bindRelayState(requestId: string, relayState: string): Promise<void> {
    await this.redis.set(this.key('relay', requestId), relayState, 'PX', this.ttlMs);
  }

  relayStateOf(requestId: string): Promise<string | null> {
    return this.redis.get(this.key('relay', requestId));
  }

  private key(kind: 'request' | 'relay', requestId: string): string {
    return `${this.keyPrefix}${kind}:${digest(requestId)}`;
  }
}

export class RedisSamlReplayStore implements SamlReplayStore {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keyPrefix: string,
  ) {}

  async claim(issuer: string, assertionId: string, ttlMs: number): Promise<boolean> {
    const px = Math.max(1, Math.ceil(ttlMs));
    return (await this.redis.set(this.key(issuer, assertionId), '1', 'PX', px, 'NX')) === 'OK';
  }

  async seen(issuer: string, assertionId: string): Promise<boolean> {
    return (await this.redis.exists(this.key(issuer, assertionId))) === 1;
  }

  private key(issuer: string, assertionId: string): string {
    return `${this.keyPrefix}assertion:${digest(issuer, assertionId)}`;
  }
}

/** Both stores over one ioredis client; `keyPrefix` (e.g. "sas:sso:saml:") namespaces every key. */
export class RedisSamlStores {
  readonly requests: RedisSamlRequestStore;
  readonly assertions: RedisSamlReplayStore;

  constructor(redis: Redis | Cluster, keyPrefix: string, requestTtlMs = DEFAULT_REQUEST_TTL_MS) {
    this.requests = new RedisSamlRequestStore(redis, keyPrefix, requestTtlMs);
    this.assertions = new RedisSamlReplayStore(redis, keyPrefix);
  }
}
