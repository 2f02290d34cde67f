import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { UsersService, type FederatedRefusal, type UserEntity } from '#auth';
import { parsePublicId, type Mode } from '#common';
import { RedisService } from '#queue';
import { AppSettings } from '#config';
import { OutboundSockets } from '#outbound';
import { LdapDirectory, LdapSignInError, ldapSettings } from '../ldap/index.js';
import type { SsoConnection } from '../connections/sso-connection.js';
import { scopesOfGroups } from '../connections/group-scopes.js';
import { SsoConnectionsService } from '../connections/sso-connections.service.js';
import { SsoConnectionsRepository } from '../connections/sso-connections.repository.js';
import { SsoEmailDomainsRepository } from '../connections/sso-email-domains.repository.js';
import { SamlSignIn } from './saml-sign-in.js';

/** How a directory or IdP sign-in ended, in terms the sign-in page can say. */
export type SsoSignInResult =
  | { ok: true; user: UserEntity }
  | {
      ok: false;
      reason:
        | 'invalid_credentials'
        | 'unavailable'
        | 'saml_refused'
        | 'foreign_domain'
        | FederatedRefusal;
      /** For the logs only: the directory's or IdP's own code. */
      detail: string;
    };

/** A checked SAML sign-in waiting for its browser to come back to the interaction. */
export type PendingSamlSignIn =
  | { ok: true; userId: string }
  | { ok: false; reason: Exclude<SsoSignInResult, { ok: true }>['reason'] };

/** How long the browser has to come back from the ACS to its interaction. */
const PENDING_TTL_SECONDS = 300;

/**
 * Signing people in through their organisation's SSO connection: the
 * connection an email's domain belongs to, the directory bind, and the
 * account it leads to (JIT-provisioned, groups and mapped scopes updated at
 * every sign-in).
 */
@Injectable()
export class SsoSignInService implements OnModuleDestroy {
  private readonly logger = new Logger(SsoSignInService.name);
  /** One directory client (and its connection pool) per connection version. */
  private readonly directories = new Map<string, { version: number; directory: LdapDirectory }>();

  constructor(
    private readonly connections: SsoConnectionsService,
    private readonly storedConnections: SsoConnectionsRepository,
    private readonly domains: SsoEmailDomainsRepository,
    private readonly users: UsersService,
    private readonly saml: SamlSignIn,
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
    private readonly sockets: OutboundSockets,
  ) {}

  /**
   * The mode a connection signs its people in to, or null when it is gone or
   * disabled (its people's tokens, refreshes included, depend on it).
   */
  async connectionMode(connectionId: string): Promise<Mode | null> {
    return this.storedConnections.enabledModeAcrossTenants(connectionId);
  }

  /**
   * The enabled connection that signs in this email's domain, or null: only
   * a domain the organisation proved routes anyone (a pending claim, anyone
   * may make). People are live-mode things: a connection made in test mode
   * (before test-mode credentials were refused them) signs nobody in.
   */
  async connectionForEmail(email: string): Promise<SsoConnection | null> {
    const domain = email.trim().toLowerCase().split('@')[1];
    if (!domain) return null;
    return this.storedConnections.findByVerifiedDomainAcrossTenants(domain);
  }

  /**
   * Search-then-bind against the connection's directory with what the person
   * typed (their email), then the account. A wrong password and an unknown
   * person read the same to the caller.
   */
  async ldapSignIn(
    connection: SsoConnection,
    email: string,
    password: string,
  ): Promise<SsoSignInResult> {
    const directory = await this.directoryFor(connection);
    let identity;
    try {
      identity = await directory.authenticate(email, password);
    } catch (error) {
      if (!(error instanceof LdapSignInError)) throw error;
      const credentials = ['invalid_credentials', 'user_not_found', 'ambiguous_user'];
      // Which of password, person or directory it was: for the operator, never for the page.
      this.logger.log({ connectionId: connection.id, code: error.code }, 'LDAP sign-in refused');
      return {
        ok: false,
        reason: credentials.includes(error.code) ? 'invalid_credentials' : 'unavailable',
        detail: error.code,
      };
    }
    return this.account(connection, 'ldap', {
      email: identity.email ?? email,
      name: identity.name,
      groups: identity.groups,
    });
  }

  /** A signed AuthnRequest to the connection's IdP, answered back to `relayState` (the interaction). */
  samlAuthorizeUrl(connection: SsoConnection, relayState: string): Promise<string> {
    return this.saml.authorizeUrl(connection, relayState);
  }

  /**
   * An IdP's POST to a connection's ACS: the response checked (signature,
   * audience, destination, time, InResponseTo, replay), then the account.
   * `solicited`: it answers a request we sent (so its RelayState is the
   * interaction that sent it); an unsolicited one (IdP-initiated, where the
   * connection allows it) must never finish an interaction its sender names.
   * Null when the connection does not exist or is not an enabled SAML one.
   */
  async samlResponse(
    connectionPublicId: string,
    body: { SAMLResponse: string; RelayState?: string },
  ): Promise<{ result: SsoSignInResult; solicited: boolean } | null> {
    const id = parsePublicId('ssoConnection', connectionPublicId);
    if (id === null) return null;
    const connection = await this.storedConnections.findSigningInSamlAcrossTenants(id);
    if (!connection) return null;
    const consumed = await this.saml.consume(connection, body);
    if ('refused' in consumed) {
      this.logger.warn(
        { connectionId: connection.id, code: consumed.refused },
        'SAML response refused',
      );
      return {
        result: { ok: false, reason: 'saml_refused', detail: consumed.refused },
        solicited: false,
      };
    }
    return {
      result: await this.account(connection, 'saml', consumed.identity),
      solicited: consumed.identity.inResponseTo !== null,
    };
  }

  /**
   * The ACS answers the IdP's cross-site POST, which carries no interaction
   * cookie (SameSite=Lax): the result waits here, under the interaction the
   * RelayState names, for the browser's redirect back (a top-level GET that
   * does carry it). Taken once.
   */
  async rememberSamlResult(interactionUid: string, result: SsoSignInResult): Promise<void> {
    const pending: PendingSamlSignIn = result.ok
      ? { ok: true, userId: result.user.id }
      : { ok: false, reason: result.reason };
    await this.redis.client.set(
      this.pendingKey(interactionUid),
      JSON.stringify(pending),
      'EX',
      PENDING_TTL_SECONDS,
    );
  }

  async takeSamlResult(interactionUid: string): Promise<PendingSamlSignIn | null> {
    const stored = await this.redis.client.getdel(this.pendingKey(interactionUid));
    return stored === null ? null : (JSON.parse(stored) as PendingSamlSignIn);
  }

  private pendingKey(interactionUid: string): string {
    return `${this.settings.redisPrefix}:sso:saml:pending:${interactionUid}`;
  }

  /** The account an IdP or directory vouched for, with the scopes its groups map to. */
  async account(
    connection: SsoConnection,
    source: 'saml' | 'ldap',
    person: { email: string; name: string | null; groups: string[] },
  ): Promise<SsoSignInResult> {
    // An IdP or directory vouches only for the domains its organisation proved: an email
    // elsewhere would take (emails are unique across organisations) an address another
    // organisation may need.
    const domain = person.email.trim().toLowerCase().split('@')[1] ?? '';
    if (!(await this.domains.isVerifiedBy(connection.organizationId, connection.id, domain))) {
      this.logger.warn(
        { connectionId: connection.id, domain },
        'SSO sign-in refused: an email outside the connection’s domains',
      );
      return { ok: false, reason: 'foreign_domain', detail: domain };
    }
    const signedIn = await this.users.signInFederated({
      organizationId: connection.organizationId,
      source,
      connectionId: connection.id,
      email: person.email,
      name: person.name,
      groups: [...new Set(person.groups)].sort(),
      scopes: scopesOfGroups(connection, person.groups),
      provision: connection.jitProvisioning,
      roles: connection.jitRoles,
    });
    return 'user' in signedIn
      ? { ok: true, user: signedIn.user }
      : { ok: false, reason: signedIn.refused, detail: signedIn.refused };
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.directories.values()].map(({ directory }) => directory.close()));
    this.directories.clear();
  }

  private async directoryFor(connection: SsoConnection): Promise<LdapDirectory> {
    if (connection.config.kind !== 'ldap') throw new Error('not an LDAP connection');
    const version = connection.updatedAt.getTime();
    const cached = this.directories.get(connection.id);
    if (cached?.version === version) return cached.directory;
    await cached?.directory.close();
    const directory = new LdapDirectory(
      ldapSettings({
        ...connection.config,
        bindPassword: await this.connections.secretOf(connection),
      }),
      this.sockets,
    );
    this.directories.set(connection.id, { version, directory });
    return directory;
  }
}
