import { createHash } from 'node:crypto';
import type { Adapter, AdapterPayload, ClientAuthMethod } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { parsePublicId, toPublicId } from '#common';
import type { Sql } from '#database';

/** Models that belong to a grant and die with it (revocation, replay detection). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode']);

interface PayloadRow {
  payload: AdapterPayload;
  consumed: number | null;
}

interface ClientRow {
  client_id: string;
  organization_id: string;
  mode: string;
  client_name: string;
  secret_hash: string | null;
  token_endpoint_auth_method: string;
  grant_types: string[];
  redirect_uris: string[];
  scopes: string[];
}

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
    private readonly kind: string,
    /** Told of every revoked grant, so the API refuses that grant's access tokens too. */
    private readonly onGrantRevoked: (grantId: string) => Promise<void>,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const { jti: _jti, ...stored } = payload;
    await this.sql.rows(
      `INSERT INTO oidc_payloads (kind, id, payload, grant_id, uid, user_code, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
       ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
         uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
      [
        this.kind,
        storedId(this.kind, id),
        stored,
        payload.grantId ?? null,
        payload.uid ?? null,
        payload.userCode ?? null,
        expiresIn ?? null,
      ],
    );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = await this.findWhere('id = $2', storedId(this.kind, id));
    return payload && { ...payload, jti: id };
  }

  /**
   * Sessions by their uid, which is no secret. The session's id is not
   * stored, so the payload comes without it: the provider only reads such a
   * session (to check who it belongs to), never saves it back.
   */
  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('uid = $2', uid);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('user_code = $2', userCode);
  }

  async consume(id: string): Promise<void> {
    const key = storedId(this.kind, id);
    const won = await this.sql.rows<{ grant_id: string | null }>(
      `UPDATE oidc_payloads SET consumed_at = now()
       WHERE kind = $1 AND id = $2 AND consumed_at IS NULL RETURNING grant_id`,
      [this.kind, key],
    );
    if (won.length > 0) return;
    const [row] = await this.sql.rows<{ grant_id: string | null }>(
      'SELECT grant_id FROM oidc_payloads WHERE kind = $1 AND id = $2',
      [this.kind, key],
    );
    if (row?.grant_id) await this.revokeGrant(row.grant_id);
    throw new errors.InvalidGrant('grant request is invalid');
  }

  async destroy(id: string): Promise<void> {
    await this.sql.rows('DELETE FROM oidc_payloads WHERE kind = $1 AND id = $2', [
      this.kind,
      storedId(this.kind, id),
    ]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    if (GRANTABLE.has(this.kind) || this.kind === 'Grant') await this.revokeGrant(grantId);
  }

  /** Everything issued under a grant, and the grant itself. */
  private async revokeGrant(grantId: string): Promise<void> {
    await this.onGrantRevoked(grantId);
    await this.sql.rows(
      `DELETE FROM oidc_payloads WHERE grant_id = $1 OR (kind = 'Grant' AND id = $1)`,
      [grantId],
    );
  }

  private async findWhere(condition: string, value: string): Promise<AdapterPayload | undefined> {
    const [row] = await this.sql.rows<PayloadRow>(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed FROM oidc_payloads
       WHERE kind = $1 AND ${condition} AND (expires_at IS NULL OR expires_at > now())`,
      [this.kind, value],
    );
    if (!row) return undefined;
    return row.consumed === null ? row.payload : { ...row.payload, consumed: Number(row.consumed) };
  }
}

/** Clients are ours (`oauth_clients`, managed under /v1/oauth-clients); the provider only reads them. */
export class ClientsAdapter implements Adapter {
  constructor(private readonly sql: Sql) {}

  async find(clientId: string): Promise<AdapterPayload | undefined> {
    const [row] = await this.sql.rows<ClientRow>(
      `SELECT client_id, organization_id, mode, client_name, secret_hash, token_endpoint_auth_method,
              grant_types, redirect_uris, scopes
       FROM oauth_clients WHERE client_id = $1 AND deleted_at IS NULL`,
      [clientId],
    );
    return row ? clientMetadata(row) : undefined;
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
function clientMetadata(row: ClientRow): AdapterPayload {
  const codeFlow = row.grant_types.includes('authorization_code');
  return {
    client_id: row.client_id,
    client_name: row.client_name,
    ...(row.secret_hash === null ? {} : { client_secret: row.secret_hash }),
    token_endpoint_auth_method: row.token_endpoint_auth_method as ClientAuthMethod,
    grant_types: row.grant_types,
    response_types: codeFlow ? ['code'] : [],
    redirect_uris: row.redirect_uris,
    scope: row.scopes.join(' '),
    organization_id: toPublicId('organization', row.organization_id),
    mode: row.mode,
  };
}

/** The organisation uuid of a client as the provider holds it. */
export function clientOrganizationId(client: { [key: string]: unknown }): string | null {
  const id = client.organization_id;
  return typeof id === 'string' ? parsePublicId('organization', id) : null;
}
