import { Injectable } from '@nestjs/common';
import {
  AppError,
  missingScopes,
  newKey,
  openSealedSecret,
  parsePublicId,
  sealSecret,
  toPublicId,
  type Principal,
  type Tenant,
} from '#common';
import { AccountSignOut, UsersRepository } from '#auth';
import { AppSettings } from '#config';
import { Sql, type KeysetPage, type PageRequest, type Transaction } from '#database';
import { AuditLog } from '#events';
import { DestinationPolicy, OutboundFetcher, OutboundSockets } from '#outbound';
import { LdapDirectory, ldapSettings } from '../ldap/index.js';
import {
  resolveLdapConfig,
  type SsoConnectionInput,
  resolveSamlConfig,
} from './connection-config.js';
import { connectionChanges, connectionTarget } from './connection-audit.js';
import { createSpCredentials } from './sp-credentials.js';
import {
  MAX_GROUP_MAPPINGS,
  type LdapConfig,
  type SamlConfig,
  type SsoConnection,
} from './sso-connection.js';
import { SsoConnectionsRepository } from './sso-connections.repository.js';
import { SsoEmailDomainsRepository } from './sso-email-domains.repository.js';
import {
  assertOwnFields,
  checkedDomains,
  checkedJitRoles,
  checkedScopes,
} from './connection-fields.js';
import {
  claimsInListedOrder,
  domainHeldElsewhere,
  newClaims,
  type DomainClaim,
} from './domain-claims.js';
import { DomainVerifier } from './domain-verifier.js';
import { ldapReport, samlReport, type SsoTestReport } from './connection-test-report.js';

/**
 * An organisation's SSO connections (issue 17): create, read, list, change,
 * delete and test. Like the people they sign in, they belong to the
 * organisation in both modes: test-mode credentials read them, only
 * live-mode ones change them (the routes are `liveOnly`). Secrets — an LDAP
 * bind password, a SAML connection's own SP signing key — are sealed with
 * SIGNING_KEY_SECRET and never leave the service.
 */
@Injectable()
export class SsoConnectionsService {
  constructor(
    private readonly sql: Sql,
    private readonly connections: SsoConnectionsRepository,
    private readonly domains: SsoEmailDomainsRepository,
    private readonly settings: AppSettings,
    private readonly fetcher: OutboundFetcher,
    private readonly users: UsersRepository,
    private readonly policy: DestinationPolicy,
    private readonly sockets: OutboundSockets,
    private readonly verifier: DomainVerifier,
    private readonly signOut: AccountSignOut,
  ) {}

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
      const resolved = await resolveLdapConfig(input.ldap ?? {}, null, this.policy);
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
      jitRoles: input.jitRoles === undefined ? ['admin'] : checkedJitRoles(input.jitRoles),
      enabled: input.enabled ?? true,
      config,
      metadataFetchedAt: fetchedAt,
      createdAt: now,
      updatedAt: now,
    };
    await this.sql.transaction(async (tx) => {
      await this.connections.insert(tx, principal.organizationId, connection, this.seal(secret));
      await this.claimDomains(tx, connection);
      await AuditLog.record(tx, principal, {
        action: 'sso_connection.created',
        actor: principal,
        target: connectionTarget(connection.id),
        changes: connectionChanges(null, connection, input.type === 'ldap'),
      });
    });
    return connection;
  }

  async get(tenant: Tenant, publicId: string): Promise<SsoConnection> {
    const uuid = parsePublicId('ssoConnection', publicId);
    if (uuid === null) throw AppError.notFound('sso connection', publicId);
    // The organisation's, whatever the mode: connections sign people in, who belong to both.
    const connection = await this.connections.find(tenant.organizationId, uuid);
    if (!connection) throw AppError.notFound('sso connection', publicId);
    return connection;
  }

  /** A SAML connection by its public id alone, for its public SP metadata; null if none. */
  async findSaml(publicId: string): Promise<SsoConnection | null> {
    const uuid = parsePublicId('ssoConnection', publicId);
    if (uuid === null) return null;
    return this.connections.findSamlAcrossTenants(uuid);
  }

  page(tenant: Tenant, request: PageRequest): Promise<KeysetPage<SsoConnection>> {
    return this.connections.page(tenant, request);
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
      const resolved = await resolveLdapConfig(input.ldap, config, this.policy);
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
      jitRoles: input.jitRoles === undefined ? current.jitRoles : checkedJitRoles(input.jitRoles),
      enabled: input.enabled ?? current.enabled,
      config,
      metadataFetchedAt: fetchedAt,
      updatedAt: new Date(),
    };
    assertHoldsWhatItGrants(principal, next);
    await this.sql.transaction(async (tx) => {
      await this.connections.update(tx, principal.organizationId, next);
      if (secret !== null) {
        await this.connections.storeSecret(
          tx,
          principal.organizationId,
          next.id,
          this.seal(secret),
        );
      }
      if (fields.emailDomains) await this.claimDomains(tx, next);
      // Recorded even when nothing changed: the request was made, and says so.
      await AuditLog.record(tx, principal, {
        action: 'sso_connection.updated',
        actor: principal,
        target: connectionTarget(next.id),
        changes: connectionChanges(current, next, secret !== null),
      });
    });
    // Disabled, it signs its people out at once, as disabling a person does: their access
    // tokens stop on the next request (each asks whether its grant was revoked), not at `exp`.
    if (current.enabled && !next.enabled) {
      await this.signOut.signOutAll(
        await this.users.peopleOfConnection(principal.organizationId, next.id),
      );
    }
    return next;
  }

  /** The connections with their domain claims, as the API answers them. */
  async withDomains(
    connections: SsoConnection[],
  ): Promise<(SsoConnection & { domains: DomainClaim[] })[]> {
    // One organisation's, as every caller passes; read per organisation all the same.
    const organizations = new Map<string, string[]>();
    for (const { organizationId, id } of connections) {
      organizations.set(organizationId, [...(organizations.get(organizationId) ?? []), id]);
    }
    const found = await Promise.all(
      [...organizations].map(([organizationId, ids]) => this.domains.claimsOf(organizationId, ids)),
    );
    const claims = claimsInListedOrder(connections, found.flat());
    return connections.map((connection) => ({
      ...connection,
      domains: claims.get(connection.id) ?? [],
    }));
  }

  /**
   * Looks up the TXT record of each pending domain now and marks those found
   * verified (the worker does the same every hour), each with its
   * `sso_connection.domains_verified` audit event. A domain another
   * connection proved first stays pending.
   */
  async verifyDomains(
    principal: Principal,
    publicId: string,
  ): Promise<SsoConnection & { domains: DomainClaim[] }> {
    const connection = await this.get(principal, publicId);
    const pending = await this.domains.pendingOf(
      principal.organizationId,
      connection.id,
      connection.emailDomains.length,
    );
    await this.verifier.check(pending, principal);
    const [checked] = await this.withDomains([connection]);
    return checked!;
  }

  async delete(principal: Principal, publicId: string): Promise<void> {
    const connection = await this.get(principal, publicId);
    // Its people keep their accounts, no longer linked to it (`users` is libs/auth's).
    const people = await this.sql.transaction(async (tx) => {
      await this.connections.delete(tx, principal.organizationId, connection.id);
      const forgotten = await this.users.forgetConnection(
        tx,
        principal.organizationId,
        connection.id,
      );
      await AuditLog.record(tx, principal, {
        action: 'sso_connection.deleted',
        actor: principal,
        target: connectionTarget(connection.id),
        details: { type: connection.type, name: connection.name },
      });
      return forgotten;
    });
    await this.signOut.signOutAll(people);
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
        this.sockets,
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
    const sealed = await this.connections.secretSealed(connection.organizationId, connection.id);
    return openSealedSecret(sealed!, this.settings.signingKeySecret, 'sso-credential');
  }

  /**
   * Makes the connection's domain claims its `emailDomains`: a domain another
   * connection holds verified is a 409 naming `email_domains`; a domain
   * others only claim is no obstacle.
   */
  private async claimDomains(tx: Transaction, connection: SsoConnection): Promise<void> {
    const held = await this.domains.verifiedElsewhereAcrossTenants(
      connection.id,
      connection.emailDomains,
      tx,
    );
    if (held !== null) throw domainHeldElsewhere(held);
    await this.domains.replaceClaims(
      tx,
      connection.organizationId,
      connection.id,
      newClaims(connection.emailDomains),
    );
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

/**
 * Whoever changes anything of a connection — its IdP, directory, domains or
 * roles — can sign in as its people, who hold what it maps: so the caller
 * must hold all of that itself (403 naming what it lacks), never more.
 */
function assertHoldsWhatItGrants(principal: Principal, connection: SsoConnection): void {
  const granted = new Set([
    ...connection.defaultScopes,
    ...Object.values(connection.groupScopes).flat(),
  ]);
  const missing = missingScopes(principal.scopes, [...granted].sort());
  if (missing.length === 0) return;
  throw new AppError('FORBIDDEN', 'This connection grants scopes your credential does not hold', {
    field: 'scope',
    issue: `its people may hold ${missing.join(' ')}; change it with a credential that holds them`,
    required_scopes: missing,
  });
}

export function ssoConnectionPublicId(connection: SsoConnection): string {
  return toPublicId('ssoConnection', connection.id);
}
