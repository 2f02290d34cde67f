import { randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { AppSettings } from '#config';
import { Sql, type JsonObject } from '#database';
import { RedisService } from '#queue';
import type { SigningKeyEntity } from './entities/signing-key.entity.js';
import { SigningKeysRepository, type NewSigningKey } from './signing-keys.repository.js';
import { ACCESS_TOKEN_TTL_SECONDS, SIGNING_ALGORITHM } from './token-constants.js';
import { openSealedSecret, sealSecret } from '#common';

export interface ActiveSigningKey {
  kid: string;
  /** The private key as a JWK, for the authorization server's key store (it signs the tokens). */
  privateJwk: JWK;
}

/** A key is never re-read from the database more often than this when an unknown kid shows up. */
const REFRESH_THROTTLE_MS = 5_000;

/**
 * The token-signing key set. A new key is published in the JWKS before it
 * signs anything; an old key stays published until every token it signed has
 * expired.
 */
@Injectable()
export class SigningKeyService {
  private readonly logger = new Logger(SigningKeyService.name);
  private publicKeys = new Map<string, CryptoKey>();
  private signing: ActiveSigningKey | null = null;
  private loadedAt = 0;
  /** When an unknown kid last made us re-read the key set. */
  private missReloadedAt = 0;
  /** Re-reads run one after another, so a slow earlier one never overwrites a later one's keys. */
  private reloading: Promise<void> = Promise.resolve();
  /** The Redis channel a change of the key set is announced on (VerifiedTokenCache listens). */
  readonly changesChannel: string;

  constructor(
    private readonly sql: Sql,
    private readonly keys: SigningKeysRepository,
    private readonly settings: AppSettings,
    private readonly redis: RedisService,
  ) {
    this.changesChannel = `${settings.redisPrefix}:signing-keys:changed`;
  }

  /**
   * Creates the first key on a fresh database. Concurrent starters (several
   * instances deployed at once) agree on one: the check and the insert run
   * under a transaction-scoped advisory lock, so the second sees the first's key.
   */
  async ensureKey(): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await this.keys.lockFirstKey(tx);
      if (!(await this.keys.any(tx))) await this.keys.insert(tx, await this.newKey(new Date()));
    });
    if (this.settings.signingKeySecret === null) {
      this.logger.warn(
        'SIGNING_KEY_SECRET is not set: private signing keys and webhook secrets are stored unencrypted',
      );
    }
    await this.reload();
  }

  /** Adds a key that starts signing after `publishFor` ms; the current one retires then. */
  async rotate(publishForMs: number): Promise<string> {
    const activatesAt = new Date(Date.now() + publishForMs);
    const key = await this.newKey(activatesAt);
    await this.sql.transaction(async (tx) => {
      await this.keys.insert(tx, key);
      await this.keys.retireAllBut(tx, key.kid, activatesAt);
    });
    await this.announceChange();
    return key.kid;
  }

  /**
   * Withdraws a key thought compromised: it is deleted, and every instance
   * re-reads its key set at once (announced on Redis), so the tokens it signed
   * are refused everywhere, cached or not. The key signing now is first
   * replaced by a new one that signs at once. Returns the replacement's kid
   * (null when `kid` was not the signing key), or throws when `kid` is unknown.
   */
  async withdraw(kid: string): Promise<string | null> {
    const now = new Date();
    const replacement = await this.sql.transaction(async (tx) => {
      await this.keys.lockFirstKey(tx);
      const active = await this.keys.activeAt(now, tx);
      const next = active?.kid === kid ? await this.newKey(now) : null;
      if (next) {
        await this.keys.insert(tx, next);
        await this.keys.retireAllBut(tx, next.kid, now);
      }
      if (!(await this.keys.delete(tx, kid))) throw new Error(`no signing key ${kid}`);
      return next?.kid ?? null;
    });
    await this.announceChange();
    return replacement;
  }

  /** Whether `kid` is in the key set this instance verifies with (no re-read). */
  isPublished(kid: string): boolean {
    return this.publicKeys.has(kid);
  }

  /** Re-reads the key set because another instance announced a change. */
  reloadAnnounced(): Promise<void> {
    return this.reload();
  }

  /**
   * Tells every instance to re-read the key set, then re-reads it here. The
   * announcement goes first: the change is committed, and a re-read failing
   * here (a command run without SIGNING_KEY_SECRET, say) must not keep the
   * others trusting a withdrawn key.
   */
  private async announceChange(): Promise<void> {
    try {
      await this.redis.client.publish(this.changesChannel, 'changed');
    } catch (error) {
      // Others still find a new key on first sight; a withdrawn one stays until they re-read.
      this.logger.error(
        { err: error },
        'could not announce a signing key change; other instances re-read their keys within a minute of signing',
      );
    }
    await this.reload();
  }

  async signingKey(): Promise<ActiveSigningKey> {
    if (!this.signing || Date.now() - this.loadedAt > 60_000) await this.reload();
    if (!this.signing) throw new Error('no active signing key');
    return this.signing;
  }

  /**
   * The public key for a kid, re-reading the key set when the kid is new to
   * us — at most once per REFRESH_THROTTLE_MS, so tokens with made-up kids
   * cannot hammer the database. Only such re-reads count against the
   * throttle: a key another instance added just after this one loaded is
   * found on its first use.
   */
  async publicKey(kid: string): Promise<CryptoKey | null> {
    const known = this.publicKeys.get(kid);
    if (known) return known;
    if (Date.now() - this.missReloadedAt < REFRESH_THROTTLE_MS) return null;
    this.missReloadedAt = Date.now();
    await this.reload();
    return this.publicKeys.get(kid) ?? null;
  }

  /** The JWKS document: every key not yet past its retirement plus the token lifetime. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const rows = await this.published();
    return {
      keys: rows.map((row) => ({ ...row.publicJwk, kid: row.kid, alg: row.algorithm, use: 'sig' })),
    };
  }

  private async published(): Promise<SigningKeyEntity[]> {
    const horizon = new Date(Date.now() - ACCESS_TOKEN_TTL_SECONDS * 1000);
    const rows = await this.keys.all();
    return rows.filter((row) => row.retiresAt === null || row.retiresAt > horizon);
  }

  private reload(): Promise<void> {
    this.reloading = this.reloading.catch(() => undefined).then(() => this.load());
    return this.reloading;
  }

  private async load(): Promise<void> {
    const rows = await this.published();
    const publicKeys = new Map<string, CryptoKey>();
    for (const row of rows) {
      publicKeys.set(
        row.kid,
        (await importJWK({ ...row.publicJwk, alg: row.algorithm }, row.algorithm)) as CryptoKey,
      );
    }
    const active = await this.keys.activeAt(new Date());
    this.publicKeys = publicKeys;
    this.signing = active
      ? {
          kid: active.kid,
          privateJwk: {
            ...(JSON.parse(
              openSealedSecret(active.privateJwk, this.settings.signingKeySecret),
            ) as JWK),
            kid: active.kid,
            alg: active.algorithm,
            use: 'sig',
          },
        }
      : null;
    this.loadedAt = Date.now();
  }

  /** A new key pair, its private half sealed, that signs from `activatesAt`. */
  private async newKey(activatesAt: Date): Promise<NewSigningKey> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, {
      extractable: true,
    });
    return {
      kid: randomBytes(12).toString('base64url'),
      algorithm: SIGNING_ALGORITHM,
      publicJwk: (await exportJWK(publicKey)) as JsonObject,
      privateJwk: sealSecret(
        JSON.stringify(await exportJWK(privateKey)),
        this.settings.signingKeySecret,
      ),
      activatesAt,
    };
  }
}
