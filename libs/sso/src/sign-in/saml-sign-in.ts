import { Injectable } from '@nestjs/common';
import { toPublicId } from '#common';
import { AppSettings } from '#config';
import { RedisService } from '#queue';
import type { SsoConnection } from '../connections/sso-connection.js';
import { SsoConnectionsService } from '../connections/sso-connections.service.js';
import {
  RedisSamlStores,
  SamlServiceProvider,
  SamlSignInError,
  type SamlIdentity,
} from '../saml/index.js';

/** Our SAML endpoints for a connection (its public id), under PUBLIC_URL. */
export function samlEndpoints(publicUrl: string, connectionPublicId: string) {
  const base = `${publicUrl.replace(/\/$/, '')}/sso/saml/${connectionPublicId}`;
  return { entityId: base, acsUrl: `${base}/acs`, metadataUrl: `${base}/metadata` };
}

/**
 * The service-provider side of a SAML connection: one SamlServiceProvider per
 * connection version (its own signing key, the IdP's certificates), with the
 * pending requests and seen assertions in Redis so every instance knows them.
 */
@Injectable()
export class SamlSignIn {
  private readonly providers = new Map<string, { version: number; sp: SamlServiceProvider }>();
  private readonly stores: RedisSamlStores;

  constructor(
    private readonly settings: AppSettings,
    private readonly connections: SsoConnectionsService,
    redis: RedisService,
  ) {
    this.stores = new RedisSamlStores(redis.client, `${settings.redisPrefix}:sso:saml:`);
  }

  /** Where to send the browser: a signed AuthnRequest bound to `relayState` (the interaction). */
  async authorizeUrl(connection: SsoConnection, relayState: string): Promise<string> {
    const sp = await this.providerFor(connection);
    return (await sp.authorizeUrl(relayState)).url;
  }

  /** The identity a POSTed response vouches for, or the IdP's refusal code. */
  async consume(
    connection: SsoConnection,
    body: { SAMLResponse: string; RelayState?: string },
  ): Promise<{ identity: SamlIdentity } | { refused: string }> {
    const sp = await this.providerFor(connection);
    try {
      return { identity: await sp.consumePostResponse(body) };
    } catch (error) {
      if (error instanceof SamlSignInError) return { refused: error.code };
      throw error;
    }
  }

  private async providerFor(connection: SsoConnection): Promise<SamlServiceProvider> {
    const config = connection.config;
    if (config.kind !== 'saml') throw new Error('not a SAML connection');
    const version = connection.updatedAt.getTime();
    const cached = this.providers.get(connection.id);
    if (cached?.version === version) return cached.sp;
    const endpoints = samlEndpoints(
      this.settings.publicUrl,
      toPublicId('ssoConnection', connection.id),
    );
    const key = await this.connections.secretOf(connection);
    const sp = new SamlServiceProvider(
      {
        spEntityId: endpoints.entityId,
        acsUrl: endpoints.acsUrl,
        idpEntityId: config.idpEntityId,
        idpSsoUrl: config.idpSsoUrl,
        idpCertificates: config.idpCertificates,
        spPrivateKey: key,
        spCertificate: config.spCertificate,
        // The metadata offers the same certificate for encryption: IdPs that encrypt use it.
        decryptionPrivateKey: key,
        clockSkewSeconds: config.clockSkewSeconds,
        allowIdpInitiated: config.allowIdpInitiated,
      },
      this.stores,
    );
    this.providers.set(connection.id, { version, sp });
    return sp;
  }
}
