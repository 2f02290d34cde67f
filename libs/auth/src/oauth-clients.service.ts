import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ALL_SCOPES, newKey, newUuid, type Mode } from '#common';
import { Sql } from '#database';
import type { OAuthClientEntity } from './entities/oauth-client.entity.js';
import { OAuthClientsRepository } from './oauth-clients.repository.js';
import { decoyHash, hashSecret, verifySecret } from './secret-hash.js';

@Injectable()
export class OAuthClientsService {
  constructor(
    private readonly sql: Sql,
    private readonly clients: OAuthClientsRepository,
  ) {}

  /**
   * The client if the id and secret match, else null. A missing client costs
   * the same hash as a wrong secret, so timing does not reveal which it was.
   */
  async authenticate(clientId: string, secret: string): Promise<OAuthClientEntity | null> {
    const client = await this.clients.findActiveAcrossTenants(clientId);
    const ok = await verifySecret(secret, client?.secretHash ?? (await decoyHash()));
    return client && client.secretHash !== null && ok ? client : null;
  }

  /** Creates a confidential client_credentials client; the secret is returned once and stored hashed. */
  async createConfidential(input: {
    organizationId: string;
    mode: Mode;
    clientName: string;
    scopes: string[];
  }): Promise<{ client: OAuthClientEntity; clientSecret: string }> {
    const clientSecret = randomBytes(32).toString('base64url');
    const now = new Date();
    const client: OAuthClientEntity = {
      id: newUuid(),
      clientId: newKey('oauthClient').id,
      organizationId: input.organizationId,
      mode: input.mode,
      clientName: input.clientName,
      secretHash: await hashSecret(clientSecret),
      tokenEndpointAuthMethod: 'client_secret_post',
      grantTypes: ['client_credentials'],
      redirectUris: [],
      scopes: input.scopes,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    await this.sql.transaction((tx) => this.clients.insert(tx, input, client));
    return { client, clientSecret };
  }

  /**
   * Creates or updates the bootstrap client so the environment stays the source
   * of truth. Instances starting together both try the insert; one wins.
   */
  async ensureBootstrapClient(
    organizationId: string,
    clientId: string,
    secret: string,
  ): Promise<void> {
    const secretHash = await hashSecret(secret);
    await this.sql.transaction((tx) =>
      this.clients.insertIfAbsent(
        tx,
        { organizationId, mode: 'live' },
        {
          id: newUuid(),
          clientId,
          clientName: 'Bootstrap client',
          secretHash,
          tokenEndpointAuthMethod: 'client_secret_post',
          grantTypes: ['client_credentials'],
          redirectUris: [],
          scopes: [...ALL_SCOPES],
          deletedAt: null,
        },
      ),
    );
    const existing = await this.clients.findAcrossTenants(clientId);
    if (!existing) throw new Error(`the bootstrap client ${clientId} is missing`);
    const unchanged =
      existing.secretHash !== null &&
      existing.organizationId === organizationId &&
      existing.deletedAt === null &&
      (await verifySecret(secret, existing.secretHash));
    if (unchanged) return;
    const change = { secretHash: await hashSecret(secret), scopes: [...ALL_SCOPES] };
    await this.sql.transaction((tx) =>
      this.clients.resetBootstrapAcrossTenants(tx, existing.id, organizationId, change),
    );
  }

  /**
   * Creates or updates one of the dashboard's public clients (see
   * dashboard-clients.ts): PKCE, no secret, rotating refresh tokens, every
   * scope (a person's roles and SSO groups still bound what a token does),
   * the callback under PUBLIC_URL as it is now.
   */
  async ensureDashboardClient(
    organizationId: string,
    mode: Mode,
    clientId: string,
    redirectUri: string,
  ): Promise<void> {
    const client = {
      clientId,
      organizationId,
      mode,
      clientName: 'Dashboard',
      secretHash: null,
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: [redirectUri],
      scopes: [...ALL_SCOPES],
      deletedAt: null,
    };
    await this.sql.transaction((tx) =>
      this.clients.insertIfAbsent(tx, { organizationId, mode }, { id: newUuid(), ...client }),
    );
    await this.sql.transaction((tx) => this.clients.resetFirstPartyAcrossTenants(tx, client));
  }
}
