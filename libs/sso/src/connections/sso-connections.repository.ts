import { Injectable } from '@nestjs/common';
import type { Mode, Tenant } from '#common';
import {
  rowMapping,
  Sql,
  SqlConditions,
  TenantLists,
  type KeysetPage,
  type PageRequest,
  type Queryable,
  type Transaction,
} from '#database';
import type { SamlConfig, SsoConnection } from './sso-connection.js';

/** The columns of `sso_connections` but the sealed secret, each with the field it maps to. */
const CONNECTION = rowMapping<SsoConnection, ConnectionColumn>(
  'sso_connections',
  {
    id: 'id',
    organization_id: 'organizationId',
    mode: 'mode',
    type: 'type',
    name: 'name',
    email_domains: 'emailDomains',
    default_scopes: 'defaultScopes',
    group_scopes: 'groupScopes',
    jit_provisioning: 'jitProvisioning',
    jit_roles: 'jitRoles',
    enabled: 'enabled',
    config: 'config',
    metadata_fetched_at: 'metadataFetchedAt',
    created_at: 'createdAt',
    updated_at: 'updatedAt',
  },
  ['group_scopes', 'config'],
);

type ConnectionColumn =
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'type'
  | 'name'
  | 'email_domains'
  | 'default_scopes'
  | 'group_scopes'
  | 'jit_provisioning'
  | 'jit_roles'
  | 'enabled'
  | 'config'
  | 'metadata_fetched_at'
  | 'created_at'
  | 'updated_at';

type ConnectionRow = Record<ConnectionColumn, unknown>;

/** Every column set from its place in `CONNECTION.toRow`; `id` ($1) and `organization_id` ($2) pick the row. */
const UPDATE_ALL = `UPDATE sso_connections SET ${CONNECTION.columns
  .map((column, i) => `${column} = $${i + 1}`)
  .join(', ')}
  WHERE id = $1 AND organization_id = $2`;

/** A SAML connection whose IdP metadata is read from a URL, due for its daily refresh. */
export interface MetadataDue {
  id: string;
  organizationId: string;
  config: SamlConfig;
}

/**
 * The `sso_connections` table. A connection is the organisation's in both
 * modes (its `mode` is the one it was made in), so methods take the
 * organisation. Sign-in finds a connection before it knows whose it is (by
 * an email's domain, or the id in an ACS or metadata URL): those reads cross
 * organisations on purpose.
 */
@Injectable()
export class SsoConnectionsRepository {
  private readonly lists: TenantLists<SsoConnection, ConnectionColumn>;

  constructor(private readonly sql: Sql) {
    this.lists = new TenantLists(sql, 'sso_connections', CONNECTION);
  }

  /** A new connection of the organisation with its sealed secret. */
  async insert(
    tx: Transaction,
    organizationId: string,
    connection: SsoConnection,
    secretSealed: string,
  ): Promise<void> {
    await tx.query(CONNECTION.insert, CONNECTION.toRow({ ...connection, organizationId }));
    await this.storeSecret(tx, organizationId, connection.id, secretSealed);
  }

  /** Writes every field of the connection as given. */
  async update(tx: Transaction, organizationId: string, connection: SsoConnection): Promise<void> {
    await tx.query(UPDATE_ALL, CONNECTION.toRow({ ...connection, organizationId }));
  }

  async storeSecret(
    tx: Transaction,
    organizationId: string,
    id: string,
    secretSealed: string,
  ): Promise<void> {
    await tx.query(
      `UPDATE sso_connections SET secret_sealed = $2 WHERE id = $1 AND organization_id = $3`,
      [id, secretSealed, organizationId],
    );
  }

  async delete(tx: Transaction, organizationId: string, id: string): Promise<void> {
    await tx.query(`DELETE FROM sso_connections WHERE id = $1 AND organization_id = $2`, [
      id,
      organizationId,
    ]);
  }

  async find(
    organizationId: string,
    id: string,
    on: Queryable = this.sql,
  ): Promise<SsoConnection | null> {
    const [row] = await on.rows<ConnectionRow>(
      `SELECT ${CONNECTION.selectList} FROM sso_connections
        WHERE id = $1 AND organization_id = $2`,
      [id, organizationId],
    );
    return row ? CONNECTION.fromRow(row) : null;
  }

  /**
   * A keyset page of the organisation's connections, newest first. The
   * cursor's anchor is looked up in the caller's mode, as every keyset list's is.
   */
  page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<SsoConnection>> {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param(tenant.organizationId)}`);
    return this.lists.page(tenant, where, request);
  }

  /** The sealed secret of one of the organisation's connections; null if it has none. */
  async secretSealed(
    organizationId: string,
    id: string,
    on: Queryable = this.sql,
  ): Promise<string | null> {
    const [row] = await on.rows<{ secret_sealed: string | null }>(
      `SELECT secret_sealed FROM sso_connections WHERE id = $1 AND organization_id = $2`,
      [id, organizationId],
    );
    return row?.secret_sealed ?? null;
  }

  /** A SAML connection by id alone, enabled or not: its public SP metadata names no organisation. */
  async findSamlAcrossTenants(id: string, on: Queryable = this.sql): Promise<SsoConnection | null> {
    const [row] = await on.rows<ConnectionRow>(
      `SELECT ${CONNECTION.selectList} FROM sso_connections WHERE id = $1 AND type = 'saml'`,
      [id],
    );
    return row ? CONNECTION.fromRow(row) : null;
  }

  /** An enabled live-mode SAML connection by id alone: what an IdP's POST to the ACS names. */
  async findSigningInSamlAcrossTenants(
    id: string,
    on: Queryable = this.sql,
  ): Promise<SsoConnection | null> {
    const [row] = await on.rows<ConnectionRow>(
      `SELECT ${CONNECTION.selectList} FROM sso_connections
        WHERE id = $1 AND type = 'saml' AND enabled AND mode = 'live'`,
      [id],
    );
    return row ? CONNECTION.fromRow(row) : null;
  }

  /**
   * The enabled live-mode connection holding `domain` verified, whichever
   * organisation's: the sign-in page routes an email before it knows whose it is.
   */
  async findByVerifiedDomainAcrossTenants(
    domain: string,
    on: Queryable = this.sql,
  ): Promise<SsoConnection | null> {
    const [row] = await on.rows<ConnectionRow>(
      `SELECT ${CONNECTION.columns.map((column) => `c.${column}`).join(', ')}
         FROM sso_email_domains d JOIN sso_connections c ON c.id = d.connection_id
        WHERE d.domain = $1 AND d.status = 'verified' AND c.enabled AND c.mode = 'live'`,
      [domain],
    );
    return row ? CONNECTION.fromRow(row) : null;
  }

  /** The mode of an enabled connection by id alone (its people's tokens check it); null if none. */
  async enabledModeAcrossTenants(id: string, on: Queryable = this.sql): Promise<Mode | null> {
    const [row] = await on.rows<{ mode: Mode }>(
      `SELECT mode FROM sso_connections WHERE id = $1 AND enabled`,
      [id],
    );
    return row?.mode ?? null;
  }

  /** SAML connections, of every organisation, whose metadata URL was last read before `before`. */
  async metadataDueAcrossTenants(
    before: Date,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<MetadataDue[]> {
    const rows = await on.rows<{ id: string; organization_id: string; config: SamlConfig }>(
      `SELECT id, organization_id, config FROM sso_connections
        WHERE type = 'saml' AND config->>'idpMetadataUrl' IS NOT NULL
          AND (metadata_fetched_at IS NULL OR metadata_fetched_at < $1)
        ORDER BY metadata_fetched_at NULLS FIRST LIMIT $2`,
      [before, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      config: row.config,
    }));
  }

  /** The IdP settings read again from the metadata URL, and when. */
  async storeMetadata(
    tx: Transaction,
    organizationId: string,
    id: string,
    config: SamlConfig,
    fetchedAt: Date,
  ): Promise<void> {
    await tx.query(
      `UPDATE sso_connections SET config = $2, metadata_fetched_at = $3, updated_at = $3
        WHERE id = $1 AND organization_id = $4`,
      [id, JSON.stringify(config), fetchedAt, organizationId],
    );
  }
}
