import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AppError, missingScopes, newKey, toPublicId, type Mode, type Principal } from '#common';
import { ApiKeyEntity } from '#database';
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey } from './api-key-format.js';

export interface NewApiKey {
  name: string;
  scopes: string[];
  expiresAt: Date | null;
  mode?: Mode;
}

/** How long a verified key is trusted from memory before the database is asked again. */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;
/** last_used_at is written at most this often per key, to keep requests read-only. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface CachedKey {
  key: ApiKeyEntity;
  cachedAt: number;
}

@Injectable()
export class ApiKeyService {
  private readonly logger = new Logger(ApiKeyService.name);
  private readonly cache = new Map<string, CachedKey>();

  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /** Creates a key for the caller's organisation; it may carry only scopes the caller holds. */
  async create(
    creator: Principal,
    input: NewApiKey,
  ): Promise<{ record: ApiKeyEntity; key: string }> {
    const notHeld = missingScopes(creator.scopes, input.scopes);
    if (notHeld.length > 0) {
      throw AppError.invalid(
        'scopes',
        `you cannot grant scopes you do not hold: ${notHeld.join(', ')}`,
      );
    }
    if (input.expiresAt !== null && input.expiresAt.getTime() <= Date.now()) {
      throw AppError.invalid('expires_at', 'must be in the future');
    }
    const mode = input.mode ?? creator.mode;
    const key = generateApiKey(mode);
    const record = this.keys.create({
      id: newKey('apiKey').uuid,
      organizationId: creator.organizationId,
      mode,
      name: input.name,
      secretHash: hashApiKey(key),
      displayPrefix: displayPrefix(key),
      scopes: [...new Set(input.scopes)],
      createdBy: creator.subject,
      createdAt: new Date(),
      expiresAt: input.expiresAt,
      lastUsedAt: null,
      revokedAt: null,
    });
    await this.keys.insert(record);
    return { record, key };
  }

  /** The principal a key stands for, or an UNAUTHORIZED error saying why not. */
  async authenticate(key: string): Promise<Principal> {
    const parsed = parseApiKey(key);
    if (!parsed) throw AppError.unauthorized('malformed API key');
    const hash = hashApiKey(key);
    const record = await this.lookup(hash);
    if (!record || record.revokedAt !== null)
      throw AppError.unauthorized('unknown or revoked API key');
    if (record.expiresAt !== null && record.expiresAt.getTime() <= Date.now()) {
      throw AppError.unauthorized('API key expired');
    }
    this.touch(record);
    return {
      credential: 'api_key',
      subject: toPublicId('apiKey', record.id),
      organizationId: record.organizationId,
      mode: record.mode,
      scopes: record.scopes,
    };
  }

  /** Drops a key from this process's cache (revocation and rotation call it). */
  forget(hash: Buffer): void {
    this.cache.delete(hash.toString('hex'));
  }

  private async lookup(hash: Buffer): Promise<ApiKeyEntity | null> {
    const cacheKey = hash.toString('hex');
    const cached = this.cache.get(cacheKey);
    if (cached && Date.now() - cached.cachedAt < CACHE_TTL_MS) return cached.key;
    const record = await this.keys.findOneBy({ secretHash: hash });
    if (record) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(cacheKey, { key: record, cachedAt: Date.now() });
    } else {
      this.cache.delete(cacheKey);
    }
    return record;
  }

  private touch(record: ApiKeyEntity): void {
    const now = Date.now();
    if (record.lastUsedAt !== null && now - record.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS)
      return;
    record.lastUsedAt = new Date(now);
    this.keys
      .update({ id: record.id }, { lastUsedAt: record.lastUsedAt })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not record API key use'));
  }
}
