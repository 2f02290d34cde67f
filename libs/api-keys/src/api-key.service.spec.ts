import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { newUuid, Scope, toPublicId, type Principal } from '#common';
import type { Sql, Transaction } from '#database';
import { AuditLog } from '#events';
import { refusal } from '#common/testing';
import type { ApiKeyEntity } from './api-key.entity.js';
import type { ApiKeyCache } from './api-key-cache.js';
import { ApiKeyService } from './api-key.service.js';
import type { ApiKeysRepository } from './api-keys.repository.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format.js';

/**
 * Creating, revoking and rotating API keys with the repository, the cache and
 * the audit log faked: what each writes, and the audit event it records in
 * the same transaction (never the key itself).
 */

const creator: Principal = {
  organizationId: newUuid(),
  mode: 'live',
  credential: 'access_token',
  subject: 'cli_admin',
  scopes: [Scope.OrganizationsWrite, Scope.SessionsRead],
};
const tx = { open: true } as unknown as Transaction;

function storedKey(overrides: Partial<ApiKeyEntity> = {}): ApiKeyEntity {
  const key = generateApiKey('live');
  return {
    id: newUuid(),
    organizationId: creator.organizationId,
    mode: 'live',
    name: 'deploy',
    secretHash: hashApiKey(key),
    displayPrefix: displayPrefix(key),
    scopes: [Scope.SessionsRead],
    createdBy: 'cli_admin',
    createdAt: new Date(),
    expiresAt: null,
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

let audited: MockInstance<typeof AuditLog.record>;
beforeEach(() => {
  audited = vi.spyOn(AuditLog, 'record').mockResolvedValue(undefined);
});
afterEach(() => vi.restoreAllMocks());

function service(stored: ApiKeyEntity | null = null) {
  const keys = {
    insert: vi.fn(() => Promise.resolve()),
    find: vi.fn(() => Promise.resolve(stored && { ...stored })),
    revoke: vi.fn(() => Promise.resolve()),
    expire: vi.fn(() => Promise.resolve()),
  };
  const cache = { invalidate: vi.fn(() => Promise.resolve()) };
  const transactions: Transaction[] = [];
  const sql = {
    transaction: (work: (tx: Transaction) => Promise<unknown>) => {
      transactions.push(tx);
      return work(tx);
    },
  };
  const apiKeys = new ApiKeyService(
    sql as unknown as Sql,
    keys as unknown as ApiKeysRepository,
    cache as unknown as ApiKeyCache,
  );
  return { apiKeys, keys, cache, transactions };
}

describe('ApiKeyService.create', () => {
  it('records api_key.created in the key’s tenant, with its fields as after-only changes, never the key', async () => {
    const { apiKeys, keys, transactions } = service();
    const expiresAt = new Date(Date.now() + 86_400_000);

    const { record, key } = await apiKeys.create(creator, {
      name: 'sandbox',
      scopes: [Scope.SessionsRead, Scope.SessionsRead],
      expiresAt,
      mode: 'test',
    });

    expect(transactions).toEqual([tx]);
    expect(keys.insert).toHaveBeenCalledWith(tx, record, record);
    expect(audited).toHaveBeenCalledTimes(1);
    expect(audited).toHaveBeenCalledWith(
      tx,
      expect.objectContaining({ organizationId: creator.organizationId, mode: 'test' }),
      {
        action: 'api_key.created',
        actor: creator,
        target: { type: 'api_key', id: toPublicId('apiKey', record.id) },
        changes: {
          name: { before: null, after: 'sandbox' },
          scopes: { before: null, after: [Scope.SessionsRead] },
          mode: { before: null, after: 'test' },
          expires_at: { before: null, after: expiresAt.toISOString() },
        },
      },
    );
    expect(JSON.stringify(audited.mock.calls[0]![2])).not.toContain(key);
    expect(keys.insert.mock.invocationCallOrder[0]).toBeLessThan(
      audited.mock.invocationCallOrder[0]!,
    );
  });

  it('records nothing when it refuses', async () => {
    const { apiKeys, transactions } = service();
    const error = await refusal(
      apiKeys.create(creator, { name: 'x', scopes: [Scope.DowsingWrite], expiresAt: null }),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    expect(transactions).toEqual([]);
    expect(audited).not.toHaveBeenCalled();
  });
});

describe('ApiKeyService.revoke', () => {
  it('records api_key.revoked with revoked_at, in the transaction that revokes', async () => {
    const stored = storedKey();
    const publicId = toPublicId('apiKey', stored.id);
    const { apiKeys, keys, cache } = service(stored);

    const revoked = await apiKeys.revoke(creator, publicId);

    expect(keys.revoke).toHaveBeenCalledWith(tx, creator, stored.id, revoked.revokedAt);
    expect(cache.invalidate).toHaveBeenCalledWith(stored.secretHash.toString('hex'));
    expect(audited).toHaveBeenCalledWith(tx, creator, {
      action: 'api_key.revoked',
      actor: creator,
      target: { type: 'api_key', id: publicId },
      changes: { revoked_at: { before: null, after: revoked.revokedAt!.toISOString() } },
    });
  });

  it('a key revoking itself is the actor; revoking twice records the attempt with no change', async () => {
    const revokedAt = new Date(Date.now() - 1000);
    const stored = storedKey({ revokedAt });
    const publicId = toPublicId('apiKey', stored.id);
    const itself: Principal = { ...creator, credential: 'api_key', subject: publicId };
    const { apiKeys, keys, cache } = service(stored);

    expect((await apiKeys.revoke(itself, publicId)).revokedAt).toEqual(revokedAt);

    expect(keys.revoke).not.toHaveBeenCalled();
    expect(cache.invalidate).not.toHaveBeenCalled();
    expect(audited).toHaveBeenCalledWith(tx, itself, {
      action: 'api_key.revoked',
      actor: itself,
      target: { type: 'api_key', id: publicId },
      changes: null,
    });
  });

  it('records nothing for a key holding scopes the caller lacks', async () => {
    const stored = storedKey({ scopes: [Scope.SessionsDelete] });
    const { apiKeys, transactions } = service(stored);
    const error = await refusal(apiKeys.revoke(creator, toPublicId('apiKey', stored.id)));
    expect(error.code).toBe('FORBIDDEN');
    expect(transactions).toEqual([]);
    expect(audited).not.toHaveBeenCalled();
  });
});

describe('ApiKeyService.rotate', () => {
  it('records api_key.rotated on the old key: its new expiry, the new key’s id and the overlap', async () => {
    const stored = storedKey();
    const publicId = toPublicId('apiKey', stored.id);
    const { apiKeys, keys } = service(stored);

    const { record, key, previous } = await apiKeys.rotate(creator, publicId, 3600);

    expect(keys.expire).toHaveBeenCalledWith(tx, creator, stored.id, previous.expiresAt);
    expect(audited).toHaveBeenCalledTimes(1);
    expect(audited).toHaveBeenCalledWith(tx, creator, {
      action: 'api_key.rotated',
      actor: creator,
      target: { type: 'api_key', id: publicId },
      changes: { expires_at: { before: null, after: previous.expiresAt!.toISOString() } },
      details: { new_key_id: toPublicId('apiKey', record.id), overlap_seconds: 3600 },
    });
    expect(JSON.stringify(audited.mock.calls[0]![2])).not.toContain(key);
  });

  it('with no overlap, the change is the old key’s revocation', async () => {
    const stored = storedKey();
    const { apiKeys } = service(stored);

    const { previous } = await apiKeys.rotate(creator, toPublicId('apiKey', stored.id), 0);

    expect(audited.mock.calls[0]![2]).toMatchObject({
      action: 'api_key.rotated',
      changes: { revoked_at: { before: null, after: previous.revokedAt!.toISOString() } },
      details: { overlap_seconds: 0 },
    });
  });

  it('records nothing for a revoked key', async () => {
    const stored = storedKey({ revokedAt: new Date() });
    const { apiKeys, transactions } = service(stored);
    const error = await refusal(apiKeys.rotate(creator, toPublicId('apiKey', stored.id), 60));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(transactions).toEqual([]);
    expect(audited).not.toHaveBeenCalled();
  });
});
