import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { newKey, newUuid, Scope, type Principal } from '#common';
import type { AppSettings } from '#config';
import type { Sql, Transaction } from '#database';
import { AuditLog } from '#events';
import { refusal } from '#common/testing';
import type { OAuthClientEntity } from './entities/oauth-client.entity.js';
import { OAuthClientRegistryService } from './oauth-client-registry.service.js';
import type { OAuthClientsRepository } from './oauth-clients.repository.js';

/**
 * The OAuth client registry with the repository and the audit log faked:
 * each change of a client records its audit event in the transaction that
 * makes it, an update with the metadata it changed, and never a secret.
 */

const admin: Principal = {
  organizationId: newUuid(),
  mode: 'live',
  credential: 'access_token',
  subject: 'usr_01jh2x7v4ke8rbk3a8y0v0d7qz',
  scopes: [Scope.OrganizationsWrite, Scope.SessionsRead],
};
const tx = { open: true } as unknown as Transaction;
const BOOTSTRAP_CLIENT_ID = 'bootstrap-client';

function storedClient(overrides: Partial<OAuthClientEntity> = {}): OAuthClientEntity {
  const key = newKey('oauthClient');
  const now = new Date();
  return {
    id: key.uuid,
    clientId: key.id,
    organizationId: admin.organizationId,
    mode: 'live',
    clientName: 'Reporting',
    secretHash: 'scrypt$stored',
    tokenEndpointAuthMethod: 'client_secret_basic',
    grantTypes: ['client_credentials'],
    redirectUris: [],
    scopes: [Scope.SessionsRead],
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    ...overrides,
  };
}

let audited: MockInstance<typeof AuditLog.record>;
beforeEach(() => {
  audited = vi.spyOn(AuditLog, 'record').mockResolvedValue(undefined);
});
afterEach(() => vi.restoreAllMocks());

function registry(stored: OAuthClientEntity | null = null) {
  const clients = {
    insert: vi.fn(() => Promise.resolve()),
    findForUpdate: vi.fn(() => Promise.resolve(stored && { ...stored })),
    update: vi.fn(() => Promise.resolve()),
  };
  const transactions: Transaction[] = [];
  const sql = {
    transaction: (work: (tx: Transaction) => Promise<unknown>) => {
      transactions.push(tx);
      return work(tx);
    },
  };
  const settings = { bootstrapClient: { clientId: BOOTSTRAP_CLIENT_ID } };
  const service = new OAuthClientRegistryService(
    sql as unknown as Sql,
    clients as unknown as OAuthClientsRepository,
    settings as unknown as AppSettings,
  );
  return { service, clients, transactions };
}

describe('OAuthClientRegistryService audit events', () => {
  it('create: oauth_client.created with the metadata as after-only changes, never the secret', async () => {
    const { service, clients } = registry();

    const { client, clientSecret } = await service.create(admin, {
      clientName: 'Nightly export',
      scope: Scope.SessionsRead,
      grantTypes: ['client_credentials'],
    });

    expect(clients.insert).toHaveBeenCalledWith(tx, admin, client);
    expect(audited).toHaveBeenCalledWith(tx, admin, {
      action: 'oauth_client.created',
      actor: admin,
      target: { type: 'oauth_client', id: client.clientId },
      changes: {
        client_name: { before: null, after: 'Nightly export' },
        redirect_uris: { before: null, after: [] },
        grant_types: { before: null, after: ['client_credentials'] },
        token_endpoint_auth_method: { before: null, after: 'client_secret_basic' },
        scope: { before: null, after: Scope.SessionsRead },
      },
    });
    expect(JSON.stringify(audited.mock.calls[0]![2])).not.toContain(clientSecret!);
  });

  it('update: oauth_client.updated with before and after of the changed fields only', async () => {
    const stored = storedClient();
    const { service, clients } = registry(stored);

    await service.update(admin, stored.clientId, {
      clientName: 'Renamed',
      scope: `${Scope.SessionsRead} ${Scope.OrganizationsWrite}`,
    });

    expect(clients.update).toHaveBeenCalledTimes(1);
    expect(audited).toHaveBeenCalledWith(tx, admin, {
      action: 'oauth_client.updated',
      actor: admin,
      target: { type: 'oauth_client', id: stored.clientId },
      changes: {
        client_name: { before: 'Reporting', after: 'Renamed' },
        scope: {
          before: Scope.SessionsRead,
          after: `${Scope.SessionsRead} ${Scope.OrganizationsWrite}`,
        },
      },
    });
  });

  it('update with nothing to change: recorded, with no changes, nothing written', async () => {
    const stored = storedClient();
    const { service, clients } = registry(stored);

    await service.update(admin, stored.clientId, {});

    expect(clients.update).not.toHaveBeenCalled();
    expect(audited.mock.calls[0]![2]).toMatchObject({
      action: 'oauth_client.updated',
      changes: null,
    });
  });

  it('rotateSecret: oauth_client.secret_rotated, the action alone', async () => {
    const stored = storedClient();
    const { service } = registry(stored);

    const { clientSecret } = await service.rotateSecret(admin, stored.clientId);

    expect(audited).toHaveBeenCalledWith(tx, admin, {
      action: 'oauth_client.secret_rotated',
      actor: admin,
      target: { type: 'oauth_client', id: stored.clientId },
      changes: null,
    });
    expect(JSON.stringify(audited.mock.calls[0]![2])).not.toContain(clientSecret);
  });

  it('delete: oauth_client.deleted', async () => {
    const stored = storedClient();
    const { service, clients } = registry(stored);

    await service.delete(admin, stored.clientId);

    expect(clients.update).toHaveBeenCalledWith(
      tx,
      admin,
      expect.objectContaining({ deletedAt: expect.any(Date) }),
    );
    expect(audited).toHaveBeenCalledWith(tx, admin, {
      action: 'oauth_client.deleted',
      actor: admin,
      target: { type: 'oauth_client', id: stored.clientId },
      changes: null,
    });
  });

  it('records nothing when a change is refused', async () => {
    const stronger = storedClient({ scopes: [Scope.SessionsDelete] });
    const { service } = registry(stronger);
    expect((await refusal(service.delete(admin, stronger.clientId))).code).toBe('FORBIDDEN');

    const bootstrap = storedClient({ clientId: BOOTSTRAP_CLIENT_ID });
    const other = registry(bootstrap);
    expect((await refusal(other.service.rotateSecret(admin, BOOTSTRAP_CLIENT_ID))).code).toBe(
      'CONFLICT',
    );
    expect(audited).not.toHaveBeenCalled();
  });
});
