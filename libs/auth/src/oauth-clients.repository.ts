import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { rowMapping, Sql, type Queryable, type Transaction } from '#database';
import type { OAuthClientEntity } from './entities/oauth-client.entity.js';

const OAUTH_CLIENT = rowMapping<OAuthClientEntity, OAuthClientColumn>('oauth_clients', {
  id: 'id',
  client_id: 'clientId',
  organization_id: 'organizationId',
  mode: 'mode',
  client_name: 'clientName',
  secret_hash: 'secretHash',
  token_endpoint_auth_method: 'tokenEndpointAuthMethod',
  grant_types: 'grantTypes',
  redirect_uris: 'redirectUris',
  scopes: 'scopes',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  deleted_at: 'deletedAt',
});

type OAuthClientColumn =
  | 'id'
  | 'client_id'
  | 'organization_id'
  | 'mode'
  | 'client_name'
  | 'secret_hash'
  | 'token_endpoint_auth_method'
  | 'grant_types'
  | 'redirect_uris'
  | 'scopes'
  | 'created_at'
  | 'updated_at'
  | 'deleted_at';

type OAuthClientRow = Record<OAuthClientColumn, unknown>;

/** A client the service defines itself (bootstrap, dashboard): its times are the database's. */
export type ServiceClient = Omit<OAuthClientEntity, 'createdAt' | 'updatedAt'>;

/**
 * `oauth_clients`: a tenant's OAuth clients, and a client found by its
 * client_id whoever presents it (the authorization server, authentication).
 * Deleted clients (`deleted_at`) are left out of every read but one.
 */
@Injectable()
export class OAuthClientsRepository {
  constructor(private readonly sql: Sql) {}

  /** A new client of the tenant (whatever tenant `client` names). */
  async insert(tx: Transaction, tenant: Tenant, client: OAuthClientEntity): Promise<void> {
    await tx.query(
      OAUTH_CLIENT.insert,
      OAUTH_CLIENT.toRow({ ...client, organizationId: tenant.organizationId, mode: tenant.mode }),
    );
  }

  /**
   * A client the service defines, in the tenant, unless its client_id is
   * taken (instances starting together).
   */
  async insertIfAbsent(
    tx: Transaction,
    tenant: Tenant,
    client: Omit<ServiceClient, 'organizationId' | 'mode'>,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO oauth_clients (id, client_id, organization_id, mode, client_name, secret_hash,
          token_endpoint_auth_method, grant_types, redirect_uris, scopes, deleted_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
        ON CONFLICT DO NOTHING`,
      [
        client.id,
        client.clientId,
        tenant.organizationId,
        tenant.mode,
        client.clientName,
        client.secretHash,
        client.tokenEndpointAuthMethod,
        client.grantTypes,
        client.redirectUris,
        client.scopes,
        client.deletedAt,
      ],
    );
  }

  /** The client presented with this client_id, in whichever tenant; null when unknown or deleted. */
  async findActiveAcrossTenants(
    clientId: string,
    on: Queryable = this.sql,
  ): Promise<OAuthClientEntity | null> {
    const [row] = await on.rows<OAuthClientRow>(
      `SELECT ${OAUTH_CLIENT.selectList} FROM oauth_clients
        WHERE client_id = $1 AND deleted_at IS NULL LIMIT 1`,
      [clientId],
    );
    return row ? OAUTH_CLIENT.fromRow(row) : null;
  }

  /** The client of this client_id, deleted or not, in whichever tenant. */
  async findAcrossTenants(
    clientId: string,
    on: Queryable = this.sql,
  ): Promise<OAuthClientEntity | null> {
    const [row] = await on.rows<OAuthClientRow>(
      `SELECT ${OAUTH_CLIENT.selectList} FROM oauth_clients WHERE client_id = $1 LIMIT 1`,
      [clientId],
    );
    return row ? OAUTH_CLIENT.fromRow(row) : null;
  }

  /**
   * The bootstrap client as the environment defines it: moved to the
   * operator organisation, its secret and every scope, undeleted.
   */
  async resetBootstrapAcrossTenants(
    tx: Transaction,
    id: string,
    organizationId: string,
    change: { secretHash: string; scopes: string[] },
  ): Promise<void> {
    await tx.query(
      `UPDATE oauth_clients SET organization_id = $2, secret_hash = $3, deleted_at = NULL,
          scopes = $4, updated_at = now()
        WHERE id = $1`,
      [id, organizationId, change.secretHash, change.scopes],
    );
  }

  /** A first-party client (the dashboard's) as the service defines it now, whatever it was. */
  async resetFirstPartyAcrossTenants(
    tx: Transaction,
    client: Omit<ServiceClient, 'id'>,
  ): Promise<void> {
    await tx.query(
      `UPDATE oauth_clients SET organization_id = $2, mode = $3, client_name = $4,
          secret_hash = $5, token_endpoint_auth_method = $6, grant_types = $7,
          redirect_uris = $8, scopes = $9, deleted_at = $10, updated_at = now()
        WHERE client_id = $1`,
      [
        client.clientId,
        client.organizationId,
        client.mode,
        client.clientName,
        client.secretHash,
        client.tokenEndpointAuthMethod,
        client.grantTypes,
        client.redirectUris,
        client.scopes,
        client.deletedAt,
      ],
    );
  }

  /** A page of the tenant's clients, newest first, with how many there are. */
  async page(
    tenant: Tenant,
    page: { limit: number; offset: number },
    on: Queryable = this.sql,
  ): Promise<{ records: OAuthClientEntity[]; total: number }> {
    const [rows, [count]] = await Promise.all([
      on.rows<OAuthClientRow>(
        `SELECT ${OAUTH_CLIENT.selectList} FROM oauth_clients
          WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL
          ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [tenant.organizationId, tenant.mode, page.limit, page.offset],
      ),
      on.rows<{ total: number }>(
        `SELECT count(*)::int AS total FROM oauth_clients
          WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL`,
        [tenant.organizationId, tenant.mode],
      ),
    ]);
    return { records: rows.map((row) => OAUTH_CLIENT.fromRow(row)), total: count!.total };
  }

  async find(
    tenant: Tenant,
    clientId: string,
    on: Queryable = this.sql,
  ): Promise<OAuthClientEntity | null> {
    const [row] = await on.rows<OAuthClientRow>(
      `SELECT ${OAUTH_CLIENT.selectList} FROM oauth_clients
        WHERE client_id = $1 AND organization_id = $2 AND mode = $3 AND deleted_at IS NULL
        LIMIT 1`,
      [clientId, tenant.organizationId, tenant.mode],
    );
    return row ? OAUTH_CLIENT.fromRow(row) : null;
  }

  /** As `find`, the row locked until `tx` ends. */
  async findForUpdate(
    tx: Transaction,
    tenant: Tenant,
    clientId: string,
  ): Promise<OAuthClientEntity | null> {
    const [row] = await tx.rows<OAuthClientRow>(
      `SELECT ${OAUTH_CLIENT.selectList} FROM oauth_clients
        WHERE client_id = $1 AND organization_id = $2 AND mode = $3 AND deleted_at IS NULL
        LIMIT 1 FOR UPDATE`,
      [clientId, tenant.organizationId, tenant.mode],
    );
    return row ? OAUTH_CLIENT.fromRow(row) : null;
  }

  /** Writes a client's metadata, secret, deletion and `updatedAt` as `client` has them. */
  async update(tx: Transaction, tenant: Tenant, client: OAuthClientEntity): Promise<void> {
    await tx.query(
      `UPDATE oauth_clients SET client_name = $4, secret_hash = $5,
          token_endpoint_auth_method = $6, grant_types = $7, redirect_uris = $8, scopes = $9,
          updated_at = $10, deleted_at = $11
        WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [
        client.id,
        tenant.organizationId,
        tenant.mode,
        client.clientName,
        client.secretHash,
        client.tokenEndpointAuthMethod,
        client.grantTypes,
        client.redirectUris,
        client.scopes,
        client.updatedAt,
        client.deletedAt,
      ],
    );
  }
}
