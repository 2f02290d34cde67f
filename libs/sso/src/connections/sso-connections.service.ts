import { X509Certificate } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import {
  AppError,
  isScope,
  newKey,
  openSealedSecret,
  parsePublicId,
  sealSecret,
  toPublicId,
  type Principal,
  type Tenant,
} from '#common';
import { UsersService } from '#auth';
import { AppSettings } from '#config';
import { Sql, tenantConditions, TenantLists, type KeysetPage, type PageRequest } from '#database';
import { OutboundFetcher } from '#outbound';
import { LdapDirectory, ldapSettings, type LdapTestResult } from '../ldap/index.js';
import {
  fetchIdpMetadata,
  resolveLdapConfig,
  resolveSamlConfig,
  type LdapInput,
  type SamlInput,
} from './connection-config.js';
import { createSpCredentials } from './sp-credentials.js';
import {
  MAX_EMAIL_DOMAINS,
  MAX_GROUP_MAPPINGS,
  type LdapConfig,
  type SamlConfig,
  type SsoConnection,
  type SsoConnectionType,
} from './sso-connection.js';
import { SSO_CONNECTION_ROWS } from './sso-connection-rows.js';

/** What a create or update may set; absent fields are left as they are. */
export interface SsoConnectionInput {
  type?: SsoConnectionType;
  name?: string;
  emailDomains?: string[];
  defaultScopes?: string[];
  groupScopes?: Record<string, string[]>;
  jitProvisioning?: boolean;
  enabled?: boolean;
  saml?: SamlInput;
  ldap?: LdapInput;
}

export interface SsoTestReport {
  ok: boolean;
  checks: { check: string; ok: boolean; error: string | null }[];
}

const UNIQUE_VIOLATION = '23505';
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * An organisation's SSO connections (issue 17), per tenant like every
 * resource: create, read, list, change, delete and test. Secrets — an LDAP
 * bind password, a SAML connection's own SP signing key — are sealed with
 * SIGNING_KEY_SECRET and never leave the service.
 */
@Injectable()
export class SsoConnectionsService {
  private readonly lists: TenantLists<SsoConnection, string>;

  constructor(
    private readonly sql: Sql,
    private readonly settings: AppSettings,
    private readonly fetcher: OutboundFetcher,
    private readonly users: UsersService,
  ) {
    this.lists = new TenantLists(sql, 'sso_connections', SSO_CONNECTION_ROWS);
  }

  async create(principal: Principal, input: SsoConnectionInput): Promise<SsoConnection> {
    if (!input.type) throw AppError.invalid('type', 'required: saml or ldap');
    if (input.name === undefined) throw AppError.invalid('name', 'required');
    if (input.emailDomains === undefined) throw AppError.invalid('email_domains', 'required');
    assertOwnFields(input.type, input);
    const { uuid, id } = newKey('ssoConnection');
    const fields = this.commonFields(principal, input);
    let config: SamlConfig | LdapConfig;
    let secret: string;
    let fetchedAt: Date | null = null;
    if (input.type === 'saml') {
      const sp = await createSpCredentials(`${this.settings.publicUrl} SSO ${id}`);
      const resolved = await resolveSamlConfig(
        input.saml ?? {},
        null,
        sp.certificate,
        this.fetcher,
      );
      config = resolved.config;
      secret = sp.privateKey;
      if (resolved.fetched) fetchedAt = new Date();
    } else {
      const resolved = resolveLdapConfig(input.ldap ?? {}, null, principal.mode === 'live');
      config = resolved.config;
      secret = resolved.bindPassword!;
    }
    const now = new Date();
    const connection: SsoConnection = {
      id: uuid,
      organizationId: principal.organizationId,
      mode: principal.mode,
      type: input.type,
      name: fields.name!,
      emailDomains: fields.emailDomains!,
      defaultScopes: fields.defaultScopes ?? [],
      groupScopes: fields.groupScopes ?? {},
      jitProvisioning: input.jitProvisioning ?? true,
      enabled: input.enabled ?? true,
      config,
      metadataFetchedAt: fetchedAt,
      createdAt: now,
      updatedAt: now,
    };
    await this.sql.transaction(async (tx) => {
      await tx.query(SSO_CONNECTION_ROWS.insert, SSO_CONNECTION_ROWS.toRow(connection));
      await tx.query(`UPDATE sso_connections SET secret_sealed = $2 WHERE id = $1`, [
        uuid,
        this.seal(secret),
      ]);
      await claimDomains(tx, uuid, connection.emailDomains);
    });
    return connection;
  }

  async get(tenant: Tenant, publicId: string): Promise<SsoConnection> {
    const uuid = parsePublicId('ssoConnection', publicId);
    if (uuid === null) throw AppError.notFound('sso connection', publicId);
    const [row] = await this.sql.rows<Record<string, unknown>>(
      `SELECT ${SSO_CONNECTION_ROWS.selectList} FROM sso_connections
        WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [uuid, tenant.organizationId, tenant.mode],
    );
    if (!row) throw AppError.notFound('sso connection', publicId);
    return SSO_CONNECTION_ROWS.fromRow(row as never);
  }

  /** A SAML connection by its public id alone, for its public SP metadata; null if none. */
  async findSaml(publicId: string): Promise<SsoConnection | null> {
    const uuid = parsePublicId('ssoConnection', publicId);
    if (uuid === null) return null;
    const [row] = await this.sql.rows<Record<string, unknown>>(
      `SELECT ${SSO_CONNECTION_ROWS.selectList} FROM sso_connections WHERE id = $1 AND type = 'saml'`,
      [uuid],
    );
    return row ? SSO_CONNECTION_ROWS.fromRow(row as never) : null;
  }

  page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<SsoConnection>> {
    return this.lists.page(tenant, tenantConditions(tenant), request);
  }

  async update(
    principal: Principal,
    publicId: string,
    input: SsoConnectionInput,
  ): Promise<SsoConnection> {
    const current = await this.get(principal, publicId);
    if (input.type !== undefined && input.type !== current.type) {
      throw AppError.invalid(
        'type',
        `cannot change: create a new ${input.type} connection instead`,
      );
    }
    assertOwnFields(current.type, input);
    const fields = this.commonFields(principal, input);
    let config = current.config;
    let secret: string | null = null;
    let fetchedAt = current.metadataFetchedAt;
    if (config.kind === 'saml' && input.saml) {
      const resolved = await resolveSamlConfig(
        input.saml,
        config,
        config.spCertificate,
        this.fetcher,
      );
      config = resolved.config;
      if (resolved.fetched) fetchedAt = new Date();
    } else if (config.kind === 'ldap' && input.ldap) {
      const resolved = resolveLdapConfig(input.ldap, config, principal.mode === 'live');
      config = resolved.config;
      secret = resolved.bindPassword;
    }
    const next: SsoConnection = {
      ...current,
      name: fields.name ?? current.name,
      emailDomains: fields.emailDomains ?? current.emailDomains,
      defaultScopes: fields.defaultScopes ?? current.defaultScopes,
      groupScopes: fields.groupScopes ?? current.groupScopes,
      jitProvisioning: input.jitProvisioning ?? current.jitProvisioning,
      enabled: input.enabled ?? current.enabled,
      config,
      metadataFetchedAt: fetchedAt,
      updatedAt: new Date(),
    };
    await this.sql.transaction(async (tx) => {
      const row = SSO_CONNECTION_ROWS.toRow(next);
      const columns = SSO_CONNECTION_ROWS.columns;
      await tx.query(
        `UPDATE sso_connections SET ${columns.map((c, i) => `${c} = $${i + 1}`).join(', ')}
          WHERE id = $1`,
        row,
      );
      if (secret !== null) {
        await tx.query(`UPDATE sso_connections SET secret_sealed = $2 WHERE id = $1`, [
          next.id,
          this.seal(secret),
        ]);
      }
      if (fields.emailDomains) {
        await tx.query(`DELETE FROM sso_email_domains WHERE connection_id = $1`, [next.id]);
        await claimDomains(tx, next.id, next.emailDomains);
      }
    });
    return next;
  }

  async delete(tenant: Tenant, publicId: string): Promise<void> {
    const connection = await this.get(tenant, publicId);
    await this.sql.rows(`DELETE FROM sso_connections WHERE id = $1`, [connection.id]);
    await this.users.forgetConnection(connection.id);
  }

  /**
   * Checks a connection against its IdP or directory: LDAP binds with the
   * service account and runs one search; SAML reads the metadata again from
   * its URL (when it has one) and checks its certificates are in date.
   */
  async test(tenant: Tenant, publicId: string): Promise<SsoTestReport> {
    const connection = await this.get(tenant, publicId);
    if (connection.config.kind === 'ldap') {
      const directory = new LdapDirectory(
        ldapSettings({ ...connection.config, bindPassword: await this.secretOf(connection) }),
      );
      try {
        return ldapReport(await directory.test());
      } finally {
        await directory.close();
      }
    }
    return samlReport(connection.config, this.fetcher);
  }

  /** The sealed secret of a connection, opened (the bind password, or the SP private key). */
  async secretOf(connection: SsoConnection): Promise<string> {
    const [row] = await this.sql.rows<{ secret_sealed: string }>(
      `SELECT secret_sealed FROM sso_connections WHERE id = $1`,
      [connection.id],
    );
    return openSealedSecret(row!.secret_sealed, this.settings.signingKeySecret, 'sso-credential');
  }

  private seal(secret: string): string {
    return sealSecret(secret, this.settings.signingKeySecret, 'sso-credential');
  }

  /** Name, domains and scopes, normalised and checked; scopes never beyond the caller's own. */
  private commonFields(principal: Principal, input: SsoConnectionInput): Partial<SsoConnection> {
    const fields: Partial<SsoConnection> = {};
    if (input.name !== undefined) {
      const name = input.name.trim();
      if (name.length === 0 || name.length > 200)
        throw AppError.invalid('name', 'must be 1–200 characters');
      fields.name = name;
    }
    if (input.emailDomains !== undefined) fields.emailDomains = checkedDomains(input.emailDomains);
    if (input.defaultScopes !== undefined) {
      fields.defaultScopes = checkedScopes(principal, input.defaultScopes, 'default_scopes');
    }
    if (input.groupScopes !== undefined) {
      const groups = Object.entries(input.groupScopes);
      if (groups.length > MAX_GROUP_MAPPINGS) {
        throw AppError.invalid('group_scopes', `at most ${MAX_GROUP_MAPPINGS} groups`);
      }
      fields.groupScopes = Object.fromEntries(
        groups.map(([group, scopes]) => {
          if (group.length === 0 || group.length > 256) {
            throw AppError.invalid('group_scopes', 'group names must be 1–256 characters');
          }
          return [group, checkedScopes(principal, scopes, `group_scopes.${group}`)];
        }),
      );
    }
    return fields;
  }
}

/** A field of the other type's settings is a mistake worth naming, not something to drop. */
function assertOwnFields(type: SsoConnectionType, input: SsoConnectionInput): void {
  const foreign = type === 'saml' ? input.ldap : input.saml;
  const [name] = Object.keys(foreign ?? {});
  if (name !== undefined) {
    throw AppError.invalid(
      name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      `is not a setting of a ${type} connection`,
    );
  }
}

function checkedDomains(domains: string[]): string[] {
  if (domains.length === 0 || domains.length > MAX_EMAIL_DOMAINS) {
    throw AppError.invalid('email_domains', `1–${MAX_EMAIL_DOMAINS} domains`);
  }
  const normalised = domains.map((domain, index) => {
    const lower = domain.trim().toLowerCase();
    if (!DOMAIN.test(lower)) {
      throw AppError.invalid(`email_domains.${index}`, 'is not a domain name (example.com)');
    }
    return lower;
  });
  if (new Set(normalised).size !== normalised.length) {
    throw AppError.invalid('email_domains', 'lists a domain twice');
  }
  return normalised;
}

function checkedScopes(principal: Principal, scopes: unknown, field: string): string[] {
  if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string')) {
    throw AppError.invalid(field, 'must be a list of scopes');
  }
  for (const scope of scopes as string[]) {
    if (!isScope(scope)) throw AppError.invalid(field, `unknown scope ${scope}`);
    if (!principal.scopes.includes(scope)) {
      throw AppError.invalid(field, `${scope} is more than your own credential has`);
    }
  }
  return [...new Set(scopes as string[])].sort();
}

async function claimDomains(
  tx: pg.PoolClient,
  connectionId: string,
  domains: string[],
): Promise<void> {
  try {
    await tx.query('SAVEPOINT claim_domains');
    await tx.query(
      `INSERT INTO sso_email_domains (domain, connection_id) SELECT unnest($2::text[]), $1`,
      [connectionId, domains],
    );
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT claim_domains');
    const { rows } = await tx.query<{ domain: string }>(
      `SELECT domain FROM sso_email_domains WHERE domain = ANY($1) AND connection_id <> $2
        ORDER BY domain LIMIT 1`,
      [domains, connectionId],
    );
    throw new AppError('CONFLICT', 'An email domain is already signed in by another connection', {
      field: 'email_domains',
      issue: `${rows[0]?.domain ?? 'a domain'} already belongs to an SSO connection`,
    });
  }
}

function ldapReport(result: LdapTestResult): SsoTestReport {
  return {
    ok: result.ok,
    checks: result.steps.map((step) => ({
      check: step.step,
      ok: step.ok,
      error: step.error ?? null,
    })),
  };
}

async function samlReport(config: SamlConfig, fetcher: OutboundFetcher): Promise<SsoTestReport> {
  const checks: SsoTestReport['checks'] = [];
  if (config.idpMetadataUrl !== null) {
    try {
      await fetchIdpMetadata(config.idpMetadataUrl, fetcher);
      checks.push({ check: 'metadata', ok: true, error: null });
    } catch (error) {
      checks.push({
        check: 'metadata',
        ok: false,
        error: error instanceof AppError ? String(error.details.issue) : 'could not be read',
      });
    }
  }
  const now = Date.now();
  config.idpCertificates.forEach((pem, index) => {
    const certificate = new X509Certificate(pem);
    const inDate =
      Date.parse(certificate.validFrom) <= now && now < Date.parse(certificate.validTo);
    checks.push({
      check: `idp_certificates.${index}`,
      ok: inDate,
      error: inDate ? null : `valid ${certificate.validFrom} to ${certificate.validTo}`,
    });
  });
  return { ok: checks.every((check) => check.ok), checks };
}

export function ssoConnectionPublicId(connection: SsoConnection): string {
  return toPublicId('ssoConnection', connection.id);
}
