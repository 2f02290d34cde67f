import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload, ClientAuthMethod } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type {
  OAuthClientEntity,
  OAuthClientsRepository,
  OidcPayloadsRepository,
  StoredOidcPayload,
} from '#auth';
import { parsePublicId, toPublicId } from '#common';
import type { JsonObject, Sql } from '#database';

/** Models that belong to a grant and die with it (revocation, replay detection). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode']);

/**
 * The stored key of a model instance. Every id but a grant's is a bearer
 * secret — a code, a refresh token, the session cookie, an interaction — so
 * only its SHA-256 is kept, as for API keys: a copy of the table hands out
 * nothing. Grant ids are no credential (access tokens carry them in
 * `grant_id`) and stay as they are, so a revoked grant can still be named.
 */
export function storedId(kind: string, id: string): string {
  return kind === 'Grant' ? id : createHash('sha256').update(id).digest('hex');
}

/**
 * oidc-provider's storage in PostgreSQL. Consumption is one conditional
 * UPDATE, so of two requests racing with one code or refresh token exactly one
 * wins; the loser is treated as a replay and the whole grant is revoked.
 * Ids are stored hashed (see storedId), and the payload's own copy of the id
 * (`jti`) is left out and restored from the id a lookup was made with.
 */
export class PostgresOidcAdapter implements Adapter {
  constructor(
    private readonly sql: Sql,
    private readonly payloads: OidcPayloadsRepository,
    private readonly kind: string,
    /** Told of every revoked grant, so the API refuses that grant's access tokens too. */
    private readonly onGrantRevoked: (grantId: string) => Promise<void>,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const { jti: _jti, ...stored } = payload;
    await this.sql.transaction((tx) =>
      this.payloads.upsert(tx, {
        kind: this.kind,
        id: storedId(this.kind, id),
        payload: stored as JsonObject,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresInSeconds: expiresIn ?? null,
      }),
    );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = withConsumed(await this.payloads.find(this.kind, storedId(this.kind, id)));
    return payload && { ...payload, jti: id };
  }

  /**
   * Sessions by their uid, which is no secret. The session's id is not
   * stored, so the payload comes without it: the provider only reads such a
   * session (to check who it belongs to), never saves it back.
   */
  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return withConsumed(await this.payloads.findByUid(this.kind, uid));
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return withConsumed(await this.payloads.findByUserCode(this.kind, userCode));
  }

  async consume(id: string): Promise<void> {
    const key = storedId(this.kind, id);
    const won = await this.sql.transaction((tx) => this.payloads.consume(tx, this.kind, key));
    if (won) return;
    const grantId = await this.payloads.grantOf(this.kind, key);
    if (grantId) await this.revokeGrant(grantId);
    throw new errors.InvalidGrant('grant request is invalid');
  }

  async destroy(id: string): Promise<void> {
    const key = storedId(this.kind, id);
    await this.sql.transaction((tx) => this.payloads.delete(tx, this.kind, key));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    if (GRANTABLE.has(this.kind) || this.kind === 'Grant') await this.revokeGrant(grantId);
  }

  /** Everything issued under a grant, and the grant itself. */
  private async revokeGrant(grantId: string): Promise<void> {
    await this.onGrantRevoked(grantId);
    await this.sql.transaction((tx) => this.payloads.deleteGrant(tx, grantId));
  }
}

/** A stored payload as the provider reads it: `consumed` (seconds) once it was. */
function withConsumed(stored: StoredOidcPayload | null): AdapterPayload | undefined {
  if (!stored) return undefined;
  const payload = stored.payload as AdapterPayload;
  return stored.consumed === null ? payload : { ...payload, consumed: stored.consumed };
}

/** Clients are ours (`oauth_clients`, managed under /v1/oauth-clients); the provider only reads them. */
export class ClientsAdapter implements Adapter {
  constructor(private readonly clients: OAuthClientsRepository) {}

  async find(clientId: string): Promise<AdapterPayload | undefined> {
    const client = await this.clients.findActiveAcrossTenants(clientId);
    return client ? clientMetadata(client) : undefined;
  }

  upsert(): Promise<void> {
    throw new Error('clients are managed through /v1/oauth-clients');
  }
  findByUid(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  consume(): Promise<void> {
    return Promise.resolve();
  }
  destroy(): Promise<void> {
    return Promise.resolve();
  }
  revokeByGrantId(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * RFC 7591 metadata as the provider wants it. `client_secret` carries the
 * scrypt hash: the provider never sees a clear secret, and compares through
 * our `compareClientSecret` (see authorization-server.ts).
 */
function clientMetadata(client: OAuthClientEntity): AdapterPayload {
  const codeFlow = client.grantTypes.includes('authorization_code');
  return {
    client_id: client.clientId,
    client_name: client.clientName,
    ...(client.secretHash === null ? {} : { client_secret: client.secretHash }),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod as ClientAuthMethod,
    grant_types: client.grantTypes,
    response_types: codeFlow ? ['code'] : [],
    redirect_uris: client.redirectUris,
    scope: client.scopes.join(' '),
    organization_id: toPublicId('organization', client.organizationId),
    mode: client.mode,
  };
}

/** The organisation uuid of a client as the provider holds it. */
export function clientOrganizationId(client: { [key: string]: unknown }): string | null {
  const id = client.organization_id;
  return typeof id === 'string' ? parsePublicId('organization', id) : null;
}
