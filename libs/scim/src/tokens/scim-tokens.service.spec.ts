import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { newUuid, parsePublicId, Scope, toPublicId, type Principal } from '#common';
import type { Sql, Transaction } from '#database';
import { AuditLog } from '#events';
import { refusal } from '#common/testing';
import { generateScimToken, hashScimToken } from './scim-token-format.js';
import type { ScimTokensRepository, ScimToken } from './scim-tokens.repository.js';
import { MAX_LIVE_SCIM_TOKENS, ScimTokensService } from './scim-tokens.service.js';

/**
 * Issuing, revoking and checking SCIM tokens with the repository and the
 * audit log faked: what each writes, the audit event it records in the same
 * transaction (never the token), and what a presented token resolves to.
 */

const admin: Principal = {
  organizationId: newUuid(),
  mode: 'live',
  credential: 'access_token',
  subject: 'cli_admin',
  scopes: [Scope.OrganizationsWrite],
};
const tx = { open: true } as unknown as Transaction;

function storedToken(overrides: Partial<ScimToken> = {}): ScimToken {
  return {
    id: newUuid(),
    organizationId: admin.organizationId,
    name: 'Okta',
    createdAt: new Date(Date.now() - 3_600_000),
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

function service({ stored = null as ScimToken | null, live = 0 } = {}) {
  const tokens = {
    countLiveLocked: vi.fn(() => Promise.resolve(live)),
    insert: vi.fn(() => Promise.resolve()),
    findForUpdate: vi.fn(() => Promise.resolve(stored && { ...stored })),
    revoke: vi.fn(() => Promise.resolve()),
    findByHashAcrossTenants: vi.fn(() => Promise.resolve(stored && { ...stored })),
    recordUse: vi.fn(() => Promise.resolve()),
  };
  const transactions: Transaction[] = [];
  const sql = {
    transaction: (work: (tx: Transaction) => Promise<unknown>) => {
      transactions.push(tx);
      return work(tx);
    },
  };
  const scimTokens = new ScimTokensService(
    sql as unknown as Sql,
    tokens as unknown as ScimTokensRepository,
  );
  return { scimTokens, tokens, transactions };
}

describe('ScimTokensService.create', () => {
  it('stores only the hash and records scim_token.created with the name, never the token', async () => {
    const { scimTokens, tokens, transactions } = service();

    const issued = await scimTokens.create(admin, 'Okta');

    expect(issued.token).toMatch(/^sas_scim_[A-Za-z0-9_-]{43}$/);
    expect(issued.id).toMatch(/^scim_/);
    expect(issued.name).toBe('Okta');
    expect(transactions).toEqual([tx]);
    expect(tokens.countLiveLocked).toHaveBeenCalledWith(tx, admin.organizationId);
    expect(tokens.insert).toHaveBeenCalledWith(tx, admin.organizationId, {
      id: parsePublicId('scimToken', issued.id),
      organizationId: admin.organizationId,
      name: 'Okta',
      tokenHash: hashScimToken(issued.token),
      createdAt: issued.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(audited).toHaveBeenCalledTimes(1);
    expect(audited).toHaveBeenCalledWith(tx, admin, {
      action: 'scim_token.created',
      actor: admin,
      target: { type: 'scim_token', id: issued.id },
      changes: { name: { before: null, after: 'Okta' } },
    });
    expect(JSON.stringify(audited.mock.calls[0]![2])).not.toContain(issued.token);
    expect(tokens.insert.mock.invocationCallOrder[0]).toBeLessThan(
      audited.mock.invocationCallOrder[0]!,
    );
  });

  it('is named SCIM unless told otherwise', async () => {
    const { scimTokens } = service();
    expect((await scimTokens.create(admin)).name).toBe('SCIM');
  });

  it(`refuses a ${MAX_LIVE_SCIM_TOKENS + 1}st live token with CONFLICT, inserting and recording nothing`, async () => {
    const { scimTokens, tokens } = service({ live: MAX_LIVE_SCIM_TOKENS });
    const error = await refusal(scimTokens.create(admin, 'one too many'));
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(`${MAX_LIVE_SCIM_TOKENS} live SCIM tokens`);
    expect(tokens.insert).not.toHaveBeenCalled();
    expect(audited).not.toHaveBeenCalled();
  });

  it('refuses a test-mode credential and a name out of bounds before any transaction', async () => {
    const { scimTokens, transactions } = service();
    expect((await refusal(scimTokens.create({ ...admin, mode: 'test' }, 'x'))).code).toBe(
      'FORBIDDEN',
    );
    for (const name of ['', 'x'.repeat(101)]) {
      expect((await refusal(scimTokens.create(admin, name))).details.field).toBe('name');
    }
    expect(transactions).toEqual([]);
    expect(audited).not.toHaveBeenCalled();
  });
});

describe('ScimTokensService.revoke', () => {
  it('records scim_token.revoked with revoked_at, in the transaction that revokes', async () => {
    const stored = storedToken();
    const publicId = toPublicId('scimToken', stored.id);
    const { scimTokens, tokens } = service({ stored });

    const revoked = await scimTokens.revoke(admin, publicId);

    expect(tokens.findForUpdate).toHaveBeenCalledWith(tx, admin.organizationId, stored.id);
    expect(tokens.revoke).toHaveBeenCalledWith(
      tx,
      admin.organizationId,
      stored.id,
      revoked.revokedAt,
    );
    expect(audited).toHaveBeenCalledWith(tx, admin, {
      action: 'scim_token.revoked',
      actor: admin,
      target: { type: 'scim_token', id: publicId },
      changes: { revoked_at: { before: null, after: revoked.revokedAt!.toISOString() } },
    });
  });

  it('revoking twice succeeds, changes nothing and records the attempt with no change', async () => {
    const revokedAt = new Date(Date.now() - 1000);
    const stored = storedToken({ revokedAt });
    const { scimTokens, tokens } = service({ stored });

    expect((await scimTokens.revoke(admin, toPublicId('scimToken', stored.id))).revokedAt).toEqual(
      revokedAt,
    );

    expect(tokens.revoke).not.toHaveBeenCalled();
    expect(audited).toHaveBeenCalledWith(tx, admin, expect.objectContaining({ changes: null }));
  });

  it('is NOT_FOUND naming the id for an unknown token or a malformed id, recording nothing', async () => {
    const { scimTokens } = service();
    for (const publicId of [toPublicId('scimToken', newUuid()), 'key_nope']) {
      const error = await refusal(scimTokens.revoke(admin, publicId));
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toContain(publicId);
    }
    expect(audited).not.toHaveBeenCalled();
  });
});

describe('ScimTokensService.authenticate', () => {
  it('answers the organisation and public id of a live token, noting its use', async () => {
    const stored = storedToken();
    const { scimTokens, tokens } = service({ stored });
    const token = generateScimToken();

    expect(await scimTokens.authenticate(token)).toEqual({
      organizationId: stored.organizationId,
      tokenId: toPublicId('scimToken', stored.id),
    });
    expect(tokens.findByHashAcrossTenants).toHaveBeenCalledWith(hashScimToken(token));
    expect(tokens.recordUse).toHaveBeenCalledWith(stored.organizationId, stored.id);
  });

  it('notes a use at most once a minute', async () => {
    const { scimTokens, tokens } = service({
      stored: storedToken({ lastUsedAt: new Date(Date.now() - 10_000) }),
    });
    expect(await scimTokens.authenticate(generateScimToken())).not.toBeNull();
    expect(tokens.recordUse).not.toHaveBeenCalled();
  });

  it('still answers when noting the use fails', async () => {
    const stored = storedToken();
    const { scimTokens, tokens } = service({ stored });
    tokens.recordUse.mockRejectedValueOnce(new Error('database went away'));
    const warned = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    expect(await scimTokens.authenticate(generateScimToken())).toMatchObject({
      organizationId: stored.organizationId,
    });
    expect(warned).toHaveBeenCalledWith(expect.anything(), 'could not record SCIM token use');
  });

  it('is null for a revoked or unknown token, and for a malformed one without a look-up', async () => {
    const revoked = service({ stored: storedToken({ revokedAt: new Date() }) });
    expect(await revoked.scimTokens.authenticate(generateScimToken())).toBeNull();
    expect(revoked.tokens.recordUse).not.toHaveBeenCalled();

    const unknown = service();
    expect(await unknown.scimTokens.authenticate(generateScimToken())).toBeNull();

    const malformed = service({ stored: storedToken() });
    for (const bad of ['', 'Bearer x', 'sk_live_abc', `${generateScimToken()}x`]) {
      expect(await malformed.scimTokens.authenticate(bad)).toBeNull();
    }
    expect(malformed.tokens.findByHashAcrossTenants).not.toHaveBeenCalled();
  });
});
