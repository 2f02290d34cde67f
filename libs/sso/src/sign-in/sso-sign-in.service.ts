import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { UsersService, type FederatedRefusal, type UserEntity } from '#auth';
import { Sql } from '#database';
import { LdapDirectory, LdapSignInError, ldapSettings } from '../ldap/index.js';
import type { SsoConnection } from '../connections/sso-connection.js';
import { SsoConnectionsService } from '../connections/sso-connections.service.js';
import { SSO_CONNECTION_ROWS } from '../connections/sso-connection-rows.js';

/** How a directory or IdP sign-in ended, in terms the sign-in page can say. */
export type SsoSignInResult =
  | { ok: true; user: UserEntity }
  | {
      ok: false;
      reason: 'invalid_credentials' | 'unavailable' | FederatedRefusal;
      /** For the logs only: the directory's or IdP's own code. */
      detail: string;
    };

/**
 * Signing people in through their organisation's SSO connection: the
 * connection an email's domain belongs to, the directory bind, and the
 * account it leads to (JIT-provisioned, groups and mapped scopes updated at
 * every sign-in).
 */
@Injectable()
export class SsoSignInService implements OnModuleDestroy {
  /** One directory client (and its connection pool) per connection version. */
  private readonly directories = new Map<string, { version: number; directory: LdapDirectory }>();

  constructor(
    private readonly sql: Sql,
    private readonly connections: SsoConnectionsService,
    private readonly users: UsersService,
  ) {}

  /** The enabled connection that signs in this email's domain, or null. */
  async connectionForEmail(email: string): Promise<SsoConnection | null> {
    const domain = email.trim().toLowerCase().split('@')[1];
    if (!domain) return null;
    const [row] = await this.sql.rows<Record<string, unknown>>(
      `SELECT ${SSO_CONNECTION_ROWS.columns.map((c) => `c.${c}`).join(', ')}
         FROM sso_email_domains d JOIN sso_connections c ON c.id = d.connection_id
        WHERE d.domain = $1 AND c.enabled`,
      [domain],
    );
    return row ? SSO_CONNECTION_ROWS.fromRow(row as never) : null;
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

  /** The account an IdP or directory vouched for, with the scopes its groups map to. */
  async account(
    connection: SsoConnection,
    source: 'saml' | 'ldap',
    person: { email: string; name: string | null; groups: string[] },
  ): Promise<SsoSignInResult> {
    const scopes = new Set(connection.defaultScopes);
    for (const group of person.groups) {
      for (const scope of connection.groupScopes[group] ?? []) scopes.add(scope);
    }
    const signedIn = await this.users.signInFederated({
      organizationId: connection.organizationId,
      source,
      connectionId: connection.id,
      email: person.email,
      name: person.name,
      groups: [...new Set(person.groups)].sort(),
      scopes: [...scopes].sort(),
      provision: connection.jitProvisioning,
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
    );
    this.directories.set(connection.id, { version, directory });
    return directory;
  }
}
