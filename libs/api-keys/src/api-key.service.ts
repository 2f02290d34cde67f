import { Injectable, Logger } from '@nestjs/common';
import {
  AppError,
  missingScopes,
  newUuid,
  parsePublicId,
  toPublicId,
  type Mode,
  type Principal,
  type Tenant,
} from '#common';
import { Sql } from '#database';
import { AuditLog, auditChanges } from '#events';
import type { ApiKeyEntity } from './api-key.entity.js';
import { ApiKeyCache } from './api-key-cache.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey } from './api-key-format.js';

export interface NewApiKey {
  name: string;
  scopes: string[];
  expiresAt: Date | null;
  mode?: Mode;
}

/** Default overlap of a rotation: the old key keeps working this long. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
/** last_used_at is written at most this often per key, to keep requests read-only. */
const LAST_USED_RESOLUTION_MS = 60_000;

@Injectable()
export class ApiKeyService {
  private readonly logger = new Logger(ApiKeyService.name);

  constructor(
    private readonly sql: Sql,
    private readonly keys: ApiKeysRepository,
    private readonly cache: ApiKeyCache,
  ) {}

  /**
   * Creates a key for the caller's organisation. It may carry only scopes the
   * caller holds, and only a live-mode caller may choose its mode: a
   * test-mode credential mints test-mode keys, so the sandbox never reaches live data.
   */
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
    const mode = input.mode ?? creator.mode;
    if (creator.mode === 'test' && mode !== 'test') {
      throw new AppError('FORBIDDEN', 'A test-mode credential can only create test-mode keys', {
        field: 'mode',
        issue: 'use a live-mode credential to create a live key',
      });
    }
    if (input.expiresAt !== null && input.expiresAt.getTime() <= Date.now()) {
      throw AppError.invalid('expires_at', 'must be in the future');
    }
    const issued = this.build(
      { organizationId: creator.organizationId, mode },
      { name: input.name, scopes: [...new Set(input.scopes)], expiresAt: input.expiresAt },
      creator.subject,
    );
    const { record } = issued;
    await this.sql.transaction(async (tx) => {
      await this.keys.insert(tx, record, record);
      // In the key's tenant, where the key lives (a live caller may create a test key).
      await AuditLog.record(tx, record, {
        action: 'api_key.created',
        actor: creator,
        target: { type: 'api_key', id: toPublicId('apiKey', record.id) },
        changes: auditChanges(
          {},
          {
            name: record.name,
            scopes: record.scopes,
            mode: record.mode,
            expires_at: record.expiresAt?.toISOString() ?? null,
          },
        ),
      });
    });
    return issued;
  }

  /** Keys of the tenant, newest first. */
  async list(
    tenant: Tenant,
    page: { limit: number; offset: number },
  ): Promise<{ records: ApiKeyEntity[]; total: number }> {
    return this.keys.page(tenant, page);
  }

  async get(tenant: Tenant, publicId: string): Promise<ApiKeyEntity> {
    const id = parsePublicId('apiKey', publicId);
    const record = id === null ? null : await this.keys.find(tenant, id);
    if (!record) throw AppError.notFound('API key', publicId);
    return record;
  }

  /**
   * Stops the key at once, in every API instance. Revoking twice is harmless.
   * A key may revoke itself; any other key only a caller holding all of its
   * scopes may revoke, so a lesser credential cannot take out a stronger one.
   */
  async revoke(actor: Principal, publicId: string): Promise<ApiKeyEntity> {
    const record = await this.get(actor, publicId);
    const itself =
      actor.credential === 'api_key' && actor.subject === toPublicId('apiKey', record.id);
    if (!itself) requireEveryScopeOf(actor, record);
    const wasRevoked = record.revokedAt;
    const revokedAt = wasRevoked ?? new Date();
    // A repeated revocation changes nothing, but is recorded all the same: someone tried.
    await this.sql.transaction(async (tx) => {
      if (wasRevoked === null) await this.keys.revoke(tx, actor, record.id, revokedAt);
      await AuditLog.record(tx, actor, {
        action: 'api_key.revoked',
        actor,
        target: { type: 'api_key', id: toPublicId('apiKey', record.id) },
        changes: auditChanges(
          { revoked_at: wasRevoked?.toISOString() ?? null },
          { revoked_at: revokedAt.toISOString() },
        ),
      });
    });
    if (wasRevoked === null) {
      record.revokedAt = revokedAt;
      await this.cache.invalidate(record.secretHash.toString('hex'));
    }
    return record;
  }

  /**
   * Issues a replacement with the same name, scopes, mode and expiry. The old
   * key keeps working for `overlapSeconds` (0: it stops now), so deployments
   * can switch without downtime. The replacement hands out every scope of
   * the key, so only a caller holding all of them may rotate it.
   */
  async rotate(
    actor: Principal,
    publicId: string,
    overlapSeconds: number,
  ): Promise<{ record: ApiKeyEntity; key: string; previous: ApiKeyEntity }> {
    const previous = await this.get(actor, publicId);
    requireEveryScopeOf(actor, previous);
    if (previous.revokedAt !== null)
      throw AppError.invalid('id', 'a revoked key cannot be rotated');
    if (previous.expiresAt !== null && previous.expiresAt.getTime() <= Date.now()) {
      throw AppError.invalid('id', 'an expired key cannot be rotated');
    }
    const issued = this.build(
      actor,
      { name: previous.name, scopes: previous.scopes, expiresAt: previous.expiresAt },
      actor.subject,
    );
    const now = new Date();
    const overlapEnd = new Date(now.getTime() + overlapSeconds * 1000);
    const expiresAt =
      previous.expiresAt !== null && previous.expiresAt < overlapEnd
        ? previous.expiresAt
        : overlapEnd;
    await this.sql.transaction(async (tx) => {
      await this.keys.insert(tx, actor, issued.record);
      if (overlapSeconds === 0) await this.keys.revoke(tx, actor, previous.id, now);
      else await this.keys.expire(tx, actor, previous.id, expiresAt);
      await AuditLog.record(tx, actor, {
        action: 'api_key.rotated',
        actor,
        target: { type: 'api_key', id: toPublicId('apiKey', previous.id) },
        // What became of the old key: stopped now, or working until the overlap ends.
        changes:
          overlapSeconds === 0
            ? auditChanges({ revoked_at: null }, { revoked_at: now.toISOString() })
            : auditChanges(
                { expires_at: previous.expiresAt?.toISOString() ?? null },
                { expires_at: expiresAt.toISOString() },
              ),
        details: {
          new_key_id: toPublicId('apiKey', issued.record.id),
          overlap_seconds: overlapSeconds,
        },
      });
    });
    Object.assign(previous, overlapSeconds === 0 ? { revokedAt: now } : { expiresAt });
    await this.cache.invalidate(previous.secretHash.toString('hex'));
    return { ...issued, previous };
  }

  private build(
    tenant: Tenant,
    fields: { name: string; scopes: string[]; expiresAt: Date | null },
    createdBy: string,
  ): { record: ApiKeyEntity; key: string } {
    const key = generateApiKey(tenant.mode);
    const record: ApiKeyEntity = {
      id: newUuid(),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      name: fields.name,
      secretHash: hashApiKey(key),
      displayPrefix: displayPrefix(key),
      scopes: fields.scopes,
      createdBy,
      createdAt: new Date(),
      expiresAt: fields.expiresAt,
      lastUsedAt: null,
      revokedAt: null,
    };
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

  private async lookup(hash: Buffer): Promise<ApiKeyEntity | null> {
    const cacheKey = hash.toString('hex');
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const record = await this.keys.findByHashAcrossTenants(hash);
    if (record) this.cache.set(cacheKey, record);
    return record;
  }

  private touch(record: ApiKeyEntity): void {
    const now = Date.now();
    if (record.lastUsedAt !== null && now - record.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS)
      return;
    const usedAt = new Date(now);
    record.lastUsedAt = usedAt;
    this.sql
      .transaction((tx) => this.keys.recordUse(tx, record, record.id, usedAt))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not record API key use'));
  }
}

/**
 * Rotating or revoking a key acts with its powers (rotation hands them out
 * again), so it needs every scope the key holds: the rule of creation, kept after it.
 */
function requireEveryScopeOf(actor: Principal, key: ApiKeyEntity): void {
  const notHeld = missingScopes(actor.scopes, key.scopes);
  if (notHeld.length === 0) return;
  throw new AppError(
    'FORBIDDEN',
    'The key holds scopes you do not; only a caller holding all of them can rotate or revoke it',
    { field: 'key_id', issue: `requires scope ${notHeld.join(' ')}`, required_scopes: notHeld },
  );
}
