import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { ALL_SCOPES, newKey, newUuid, type Mode } from '#common';
import { OAuthClientEntity } from './entities/oauth-client.entity.js';
import { decoyHash, hashSecret, verifySecret } from './secret-hash.js';

@Injectable()
export class OAuthClientsService {
  constructor(
    @InjectRepository(OAuthClientEntity) private readonly clients: Repository<OAuthClientEntity>,
  ) {}

  /**
   * The client if the id and secret match, else null. A missing client costs
   * the same hash as a wrong secret, so timing does not reveal which it was.
   */
  async authenticate(clientId: string, secret: string): Promise<OAuthClientEntity | null> {
    const client = await this.clients.findOneBy({ clientId, deletedAt: IsNull() });
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
    const client = this.clients.create({
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
      deletedAt: null,
    });
    await this.clients.insert(client);
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
    await this.clients
      .createQueryBuilder()
      .insert()
      .values({
        id: newUuid(),
        clientId,
        organizationId,
        mode: 'live',
        clientName: 'Bootstrap client',
        secretHash: await hashSecret(secret),
        tokenEndpointAuthMethod: 'client_secret_post',
        grantTypes: ['client_credentials'],
        redirectUris: [],
        scopes: [...ALL_SCOPES],
        deletedAt: null,
      })
      .orIgnore()
      .execute();
    const existing = await this.clients.findOneByOrFail({ clientId });
    const unchanged =
      existing.secretHash !== null &&
      existing.organizationId === organizationId &&
      existing.deletedAt === null &&
      (await verifySecret(secret, existing.secretHash));
    if (unchanged) return;
    await this.clients.update(
      { id: existing.id },
      {
        organizationId,
        secretHash: await hashSecret(secret),
        deletedAt: null,
        scopes: [...ALL_SCOPES],
      },
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
    const fields = {
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
    await this.clients
      .createQueryBuilder()
      .insert()
      .values({ id: newUuid(), clientId, ...fields })
      .orIgnore()
      .execute();
    await this.clients.update({ clientId }, fields);
  }
}
