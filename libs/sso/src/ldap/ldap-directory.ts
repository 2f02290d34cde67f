import type { OutboundSockets } from '#outbound';
import type { Client, Entry, SearchOptions } from 'ldapts';
import {
  closeQuietly,
  LDAP_TIMEOUT_MS,
  openBoundConnection,
  usesTls,
  type ConnectionProgress,
} from './ldap-connection.js';
import { LdapSignInError, toLdapSignInError } from './ldap-errors.js';
import { attributeValues, readGroups } from './ldap-groups.js';
import { fillFilterTemplate, ldapSettingsIssues, type LdapSettings } from './ldap-settings.js';
import { ServiceConnectionPool } from './service-connection-pool.js';

/** Who signed in, as the directory describes them. */
export interface LdapIdentity {
  dn: string;
  /** The first value of email_attribute, or null when the entry has none. */
  email: string | null;
  /** The first value of name_attribute, or null when the entry has none. */
  name: string | null;
  /** Group names (group_name_attribute), direct groups first. */
  groups: string[];
}

export type LdapTestStep = 'connect' | 'tls' | 'bind' | 'search';

/** What `test()` found, step by step; the steps after a failed one are not run. */
export interface LdapTestResult {
  ok: boolean;
  steps: { step: LdapTestStep; ok: boolean; error?: string }[];
}

export interface LdapDirectoryOptions {
  /** Connect and per-operation timeout (default 5 s). */
  timeoutMs?: number;
  /** Service-bound connections kept for searches (default 4). */
  poolSize?: number;
}

/** Longer usernames are refused before the directory sees them. */
export const MAX_USERNAME_LENGTH = 256;
/** rootDSE supportedCapabilities value of Active Directory (LDAP_CAP_ACTIVE_DIRECTORY_OID). */
const ACTIVE_DIRECTORY_CAPABILITY = '1.2.840.113556.1.4.800';

interface ServerInfo {
  activeDirectory: boolean;
  defaultNamingContext: string | null;
}

/**
 * One organisation's directory: search-then-bind sign-in and a connection check.
 * The service account searches on a small pool of connections; each user's password
 * is checked by a bind on a fresh connection of its own, closed right after.
 */
export class LdapDirectory {
  private readonly pool: ServiceConnectionPool;
  private readonly timeoutMs: number;
  private serverInfo: Promise<ServerInfo> | null = null;

  constructor(
    private readonly settings: LdapSettings,
    private readonly sockets: OutboundSockets,
    options: LdapDirectoryOptions = {},
  ) {
    // Where plain LDAP may go was decided when the settings were saved; the sockets check again.
    const issues = ldapSettingsIssues(settings, { plainLdapAllowed: () => true });
    if (issues.length > 0) {
      const list = issues.map(({ field, issue }) => `${field} ${issue}`).join('; ');
      throw new LdapSignInError('misconfigured', `invalid LDAP settings: ${list}`);
    }
    this.timeoutMs = options.timeoutMs ?? LDAP_TIMEOUT_MS;
    this.pool = new ServiceConnectionPool(() => this.bindServiceAccount(), options.poolSize ?? 4);
  }

  /**
   * Finds the one entry user_filter matches for `username`, checks `password` by binding
   * as that entry, then reads its groups. Throws LdapSignInError.
   */
  async authenticate(username: string, password: string): Promise<LdapIdentity> {
    if (password === '') {
      throw new LdapSignInError('invalid_credentials', 'an empty password is never accepted');
    }
    if (username === '' || username.includes('\0') || username.length > MAX_USERNAME_LENGTH) {
      throw new LdapSignInError('user_not_found', 'no directory user can have that username');
    }
    const user = await this.findUser(username);
    const userConnection = await openBoundConnection(
      this.settings,
      this.sockets,
      { dn: user.dn, password, as: 'user bind' },
      undefined,
      this.timeoutMs,
    );
    await closeQuietly(userConnection);

    const { settings } = this;
    const server = settings.nestedGroups ? await this.readServerInfo() : null;
    const groups = await readGroups(
      {
        settings,
        search: (base, options) => this.search(base, options),
        activeDirectory: server?.activeDirectory ?? false,
        defaultSearchBase: server?.defaultNamingContext ?? settings.userBaseDn,
      },
      { dn: user.dn, memberOf: attributeValues(user, 'memberOf') },
    );
    return {
      dn: user.dn,
      email: attributeValues(user, settings.emailAttribute)[0] ?? null,
      name: attributeValues(user, settings.nameAttribute)[0] ?? null,
      groups,
    };
  }

  /** Binds as the service account on a fresh connection and runs one search of user_base_dn. */
  async test(): Promise<LdapTestResult> {
    const steps: LdapTestResult['steps'] = [];
    const progress: ConnectionProgress = { connected: false, secured: false };
    const tls = usesTls(this.settings);
    let client: Client;
    try {
      client = await this.bindServiceAccount(progress);
    } catch (error) {
      const { message } = toLdapSignInError(error, 'service bind');
      const failed = (step: LdapTestStep) => steps.push({ step, ok: false, error: message });
      if (!progress.connected) failed('connect');
      else {
        steps.push({ step: 'connect', ok: true });
        if (tls && !progress.secured) failed('tls');
        else {
          if (tls) steps.push({ step: 'tls', ok: true });
          failed('bind');
        }
      }
      return { ok: false, steps };
    }
    steps.push({ step: 'connect', ok: true });
    if (tls) steps.push({ step: 'tls', ok: true });
    steps.push({ step: 'bind', ok: true });
    try {
      await client.search(this.settings.userBaseDn, {
        scope: 'base',
        filter: '(objectClass=*)',
        attributes: ['1.1'],
      });
      steps.push({ step: 'search', ok: true });
    } catch (error) {
      steps.push({ step: 'search', ok: false, error: toLdapSignInError(error, 'search').message });
    } finally {
      await closeQuietly(client);
    }
    return { ok: steps.every((step) => step.ok), steps };
  }

  /** Closes the pooled service connections. */
  async close(): Promise<void> {
    await this.pool.close();
  }

  private async findUser(username: string): Promise<Entry> {
    const { settings } = this;
    const attributes = [settings.emailAttribute, settings.nameAttribute];
    if (settings.groupFilter === null) attributes.push('memberOf');
    const entries = await this.search(settings.userBaseDn, {
      scope: 'sub',
      filter: fillFilterTemplate(settings.userFilter, '{username}', username),
      attributes,
      // Two are enough to know the filter is ambiguous.
      sizeLimit: 2,
    });
    if (entries.length === 0) {
      throw new LdapSignInError('user_not_found', 'no directory user matches that username');
    }
    if (entries.length > 1) {
      throw new LdapSignInError(
        'ambiguous_user',
        'several directory users match that username: user_filter must match one entry',
      );
    }
    return entries[0]!;
  }

  /** One search as the service account. Referrals are never followed (AD's can hang). */
  private async search(base: string, options: SearchOptions): Promise<Entry[]> {
    try {
      return await this.pool.use(async (client) => {
        const result = await client.search(base, {
          derefAliases: 'never',
          timeLimit: Math.ceil(this.timeoutMs / 1_000),
          ...options,
        });
        return result.searchEntries;
      });
    } catch (error) {
      throw toLdapSignInError(error, 'search');
    }
  }

  private bindServiceAccount(progress?: ConnectionProgress): Promise<Client> {
    const { bindDn, bindPassword } = this.settings;
    return openBoundConnection(
      this.settings,
      this.sockets,
      { dn: bindDn, password: bindPassword, as: 'service bind' },
      progress,
      this.timeoutMs,
    );
  }

  /** Whether the server is Active Directory, from its rootDSE (read once). */
  private readServerInfo(): Promise<ServerInfo> {
    this.serverInfo ??= this.search('', {
      scope: 'base',
      filter: '(objectClass=*)',
      attributes: ['supportedCapabilities', 'defaultNamingContext'],
    }).then(
      ([rootDse]) => ({
        activeDirectory:
          rootDse !== undefined &&
          attributeValues(rootDse, 'supportedCapabilities').includes(ACTIVE_DIRECTORY_CAPABILITY),
        defaultNamingContext:
          rootDse === undefined
            ? null
            : (attributeValues(rootDse, 'defaultNamingContext')[0] ?? null),
      }),
      (error: unknown) => {
        this.serverInfo = null; // asked again next time
        throw error;
      },
    );
    return this.serverInfo;
  }
}
