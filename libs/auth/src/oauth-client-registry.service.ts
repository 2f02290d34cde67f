import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, isScope, missingScopes, newKey, type Principal, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, type Transaction } from '#database';
import { AuditLog, auditChanges, type AuditAction, type AuditChanges } from '#events';
import type { OAuthClientEntity } from './entities/oauth-client.entity.js';
import { OAuthClientsRepository } from './oauth-clients.repository.js';
import { hashSecret } from './secret-hash.js';
import { isFirstPartyClient } from './dashboard-clients.js';

/** RFC 7591 grant types a client may register. */
export const OAUTH_GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
] as const;
export type OAuthGrantType = (typeof OAUTH_GRANT_TYPES)[number];
export const DEFAULT_GRANT_TYPES: readonly OAuthGrantType[] = [
  'authorization_code',
  'refresh_token',
];

/** RFC 7591 token endpoint authentication methods; `none` is a public client without a secret. */
export const TOKEN_ENDPOINT_AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'none',
] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];
export const DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD: TokenEndpointAuthMethod = 'client_secret_basic';

export const MAX_REDIRECT_URIS = 20;
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
/** Every client id this service hands out, and the bootstrap client's (see settings). */
const CLIENT_ID_PATTERN = /^[A-Za-z0-9._~-]{3,128}$/;

export interface OAuthClientMetadata {
  clientName: string;
  redirectUris: string[];
  grantTypes: OAuthGrantType[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** Space-separated, as in RFC 6749 §3.3. */
  scope: string;
}

export type NewOAuthClient = Pick<OAuthClientMetadata, 'clientName' | 'scope'> &
  Partial<OAuthClientMetadata>;
export type OAuthClientChanges = Partial<OAuthClientMetadata>;

/** A client with the secret issued by this call, shown once; null when none was issued. */
export interface OAuthClientWithSecret {
  client: OAuthClientEntity;
  clientSecret: string | null;
}

type Field = 'redirect_uris' | 'grant_types' | 'token_endpoint_auth_method' | 'scope';

/**
 * Organisation admins' management of their OAuth 2.0 clients (RFC 7591
 * metadata). Every method takes the tenant first; another organisation's or
 * mode's client, a deleted one and a malformed id are all "not found". Secrets
 * are returned once and stored only as scrypt hashes. The bootstrap client
 * belongs to the environment (BOOTSTRAP_CLIENT_ID/SECRET) and cannot be changed here.
 */
@Injectable()
export class OAuthClientRegistryService {
  constructor(
    private readonly sql: Sql,
    private readonly clients: OAuthClientsRepository,
    private readonly settings: AppSettings,
  ) {}

  /** Registers a client in the creator's organisation and mode; it may hold only scopes the creator holds. */
  async create(creator: Principal, input: NewOAuthClient): Promise<OAuthClientWithSecret> {
    const metadata = validateMetadata(
      creator,
      {
        clientName: input.clientName,
        redirectUris: input.redirectUris ?? [],
        grantTypes: input.grantTypes ?? [...DEFAULT_GRANT_TYPES],
        tokenEndpointAuthMethod:
          input.tokenEndpointAuthMethod ?? DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD,
        scope: input.scope,
      },
      new Set<Field>(['redirect_uris', 'grant_types', 'token_endpoint_auth_method', 'scope']),
    );
    const clientSecret = metadata.tokenEndpointAuthMethod === 'none' ? null : generateSecret();
    const now = new Date();
    const key = newKey('oauthClient');
    const client: OAuthClientEntity = {
      id: key.uuid,
      clientId: key.id,
      organizationId: creator.organizationId,
      mode: creator.mode,
      clientName: metadata.clientName,
      secretHash: clientSecret === null ? null : await hashSecret(clientSecret),
      tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
      grantTypes: metadata.grantTypes,
      redirectUris: metadata.redirectUris,
      scopes: metadata.scopes,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    await this.sql.transaction(async (tx) => {
      await this.clients.insert(tx, creator, client);
      await this.audit(
        tx,
        creator,
        'oauth_client.created',
        client,
        auditChanges({}, fieldsOf(client)),
      );
    });
    return { client, clientSecret };
  }

  /** The tenant's clients, newest first (deleted ones left out). */
  async list(
    tenant: Tenant,
    page: { limit: number; offset: number },
  ): Promise<{ records: OAuthClientEntity[]; total: number }> {
    return this.clients.page(tenant, page);
  }

  async get(tenant: Tenant, clientId: string): Promise<OAuthClientEntity> {
    const client = CLIENT_ID_PATTERN.test(clientId)
      ? await this.clients.find(tenant, clientId)
      : null;
    if (!client) throw notFound(clientId);
    return client;
  }

  /**
   * Changes the given metadata; the result must satisfy the same rules as a
   * new client. Switching to `none` drops the secret; switching a public
   * client to a secret method issues a new secret, returned once. Only a
   * caller holding every scope of the client may change it.
   */
  async update(
    actor: Principal,
    clientId: string,
    changes: OAuthClientChanges,
  ): Promise<OAuthClientWithSecret> {
    return this.changeLocked(actor, clientId, 'oauth_client.updated', async (current) => {
      requireEveryScopeOf(actor, current);
      if (Object.values(changes).every((value) => value === undefined)) {
        return { change: {}, clientSecret: null };
      }
      const changed = new Set<Field>();
      if (changes.redirectUris !== undefined) changed.add('redirect_uris');
      if (changes.grantTypes !== undefined) changed.add('grant_types');
      if (changes.tokenEndpointAuthMethod !== undefined) changed.add('token_endpoint_auth_method');
      if (changes.scope !== undefined) changed.add('scope');
      const metadata = validateMetadata(
        actor,
        {
          clientName: changes.clientName ?? current.clientName,
          redirectUris: changes.redirectUris ?? current.redirectUris,
          grantTypes: changes.grantTypes ?? (current.grantTypes as OAuthGrantType[]),
          tokenEndpointAuthMethod:
            changes.tokenEndpointAuthMethod ??
            (current.tokenEndpointAuthMethod as TokenEndpointAuthMethod),
          scope: changes.scope ?? current.scopes.join(' '),
        },
        changed,
      );
      const isPublic = metadata.tokenEndpointAuthMethod === 'none';
      const clientSecret = !isPublic && current.secretHash === null ? generateSecret() : null;
      const secretHash = isPublic
        ? null
        : clientSecret !== null
          ? await hashSecret(clientSecret)
          : current.secretHash;
      return {
        change: {
          clientName: metadata.clientName,
          redirectUris: metadata.redirectUris,
          grantTypes: metadata.grantTypes,
          tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
          scopes: metadata.scopes,
          secretHash,
        },
        clientSecret,
      };
    });
  }

  /**
   * A new secret, returned once; the old one stops working at once. Only a
   * caller holding every scope of the client may take its secret.
   */
  async rotateSecret(
    actor: Principal,
    clientId: string,
  ): Promise<{ client: OAuthClientEntity; clientSecret: string }> {
    return this.changeLocked(actor, clientId, 'oauth_client.secret_rotated', async (current) => {
      requireEveryScopeOf(actor, current);
      if (current.secretHash === null || current.tokenEndpointAuthMethod === 'none') {
        throw new AppError('CONFLICT', 'A public client has no secret to rotate', {
          field: 'token_endpoint_auth_method',
          issue:
            'the client is public (none); PATCH token_endpoint_auth_method to client_secret_basic or client_secret_post to issue a secret',
        });
      }
      const clientSecret = generateSecret();
      return { change: { secretHash: await hashSecret(clientSecret) }, clientSecret };
    });
  }

  /**
   * Soft delete: the client is gone from every read and can no longer
   * authenticate. Only a caller holding every scope of the client may delete it.
   */
  async delete(actor: Principal, clientId: string): Promise<void> {
    await this.changeLocked(actor, clientId, 'oauth_client.deleted', (current) => {
      requireEveryScopeOf(actor, current);
      return Promise.resolve({ change: { deletedAt: new Date() }, clientSecret: null });
    });
  }

  /**
   * Runs a change on the row locked for update, so concurrent changes see each
   * other's result and a deleted client cannot be changed; the change is
   * recorded in the audit log as `action` in the same transaction (an update
   * with the metadata it changed, if any).
   */
  private async changeLocked<Secret extends string | null>(
    actor: Principal,
    clientId: string,
    action: AuditAction,
    decide: (
      current: OAuthClientEntity,
    ) => Promise<{ change: Partial<OAuthClientEntity>; clientSecret: Secret }>,
  ): Promise<{ client: OAuthClientEntity; clientSecret: Secret }> {
    return this.sql.transaction(async (tx) => {
      const current = CLIENT_ID_PATTERN.test(clientId)
        ? await this.clients.findForUpdate(tx, actor, clientId)
        : null;
      if (!current) throw notFound(clientId);
      if (current.clientId === this.settings.bootstrapClient?.clientId) {
        throw new AppError(
          'CONFLICT',
          'The bootstrap client is managed by the environment and cannot be changed through the API',
          {
            field: 'client_id',
            issue: 'set BOOTSTRAP_CLIENT_ID / BOOTSTRAP_CLIENT_SECRET and restart to change it',
          },
        );
      }
      // They sign in people of every organisation without consent: only the service defines them.
      if (isFirstPartyClient(current.clientId)) {
        throw new AppError(
          'CONFLICT',
          "The dashboard's sign-in clients are the service's own and cannot be changed through the API",
          {
            field: 'client_id',
            issue: 'the service registers them itself at every start',
          },
        );
      }
      const before = fieldsOf(current);
      const { change, clientSecret } = await decide(current);
      if (Object.keys(change).length > 0) {
        Object.assign(current, change, { updatedAt: new Date() });
        await this.clients.update(tx, actor, current);
      }
      // A secret's rotation and a deletion are the action alone; an update says what it changed.
      const changes =
        action === 'oauth_client.updated' ? auditChanges(before, fieldsOf(current)) : null;
      await this.audit(tx, actor, action, current, changes);
      return { client: current, clientSecret };
    });
  }

  private audit(
    tx: Transaction,
    actor: Principal,
    action: AuditAction,
    client: OAuthClientEntity,
    changes: AuditChanges | null,
  ): Promise<void> {
    return AuditLog.record(tx, actor, {
      action,
      actor,
      target: { type: 'oauth_client', id: client.clientId },
      changes,
    });
  }
}

/** A client's metadata as the API names it, for the audit log; never its secret. */
function fieldsOf(client: OAuthClientEntity): Record<string, unknown> {
  return {
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    scope: client.scopes.join(' '),
  };
}

function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Changing a client or taking its secret hands out what the client holds, so
 * it needs every one of the client's scopes: the rule of creation, kept after it.
 */
function requireEveryScopeOf(actor: Principal, client: OAuthClientEntity): void {
  const notHeld = missingScopes(actor.scopes, client.scopes);
  if (notHeld.length === 0) return;
  throw new AppError(
    'FORBIDDEN',
    'The client holds scopes you do not; only a caller holding all of them can change it',
    { field: 'scope', issue: `requires scope ${notHeld.join(' ')}`, required_scopes: notHeld },
  );
}

function notFound(clientId: string): AppError {
  return AppError.notFound('OAuth client', clientId, 'client_id');
}

/**
 * The rules of a client's metadata as a whole. `changed` names the fields the
 * caller sent, so an inconsistency is blamed on a field they can fix.
 */
function validateMetadata(
  caller: Principal,
  input: OAuthClientMetadata,
  changed: ReadonlySet<Field>,
): Omit<OAuthClientMetadata, 'scope'> & { scopes: string[] } {
  const grantTypes = [...new Set(input.grantTypes)];
  if (grantTypes.length === 0)
    throw AppError.invalid('grant_types', 'must name at least one grant type');
  const redirectUris = changed.has('redirect_uris')
    ? validateRedirectUris(input.redirectUris)
    : input.redirectUris;
  const scopes = changed.has('scope')
    ? validateScope(caller, input.scope)
    : parseScope(input.scope);
  const method = input.tokenEndpointAuthMethod;
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0) {
    throw AppError.invalid(
      'redirect_uris',
      'the authorization_code grant needs at least one redirect URI',
    );
  }
  if (grantTypes.includes('refresh_token') && !grantTypes.includes('authorization_code')) {
    throw AppError.invalid('grant_types', 'refresh_token needs the authorization_code grant');
  }
  if (method === 'none' && grantTypes.includes('client_credentials')) {
    const field =
      changed.has('token_endpoint_auth_method') && !changed.has('grant_types')
        ? 'token_endpoint_auth_method'
        : 'grant_types';
    throw AppError.invalid(
      field,
      'a public client (token_endpoint_auth_method none) cannot use the client_credentials grant',
    );
  }
  return {
    clientName: input.clientName,
    redirectUris,
    grantTypes,
    tokenEndpointAuthMethod: method,
    scopes,
  };
}

/** Exact absolute URIs: https, or http on a loopback host (RFC 8252 §7.3); no fragment. */
function validateRedirectUris(uris: string[]): string[] {
  const unique = [...new Set(uris)];
  if (unique.length > MAX_REDIRECT_URIS) {
    throw AppError.invalid('redirect_uris', `can list at most ${MAX_REDIRECT_URIS} URIs`);
  }
  for (const uri of unique) {
    const problem = redirectUriProblem(uri);
    if (problem !== null)
      throw AppError.invalid('redirect_uris', `${JSON.stringify(uri)} ${problem}`);
  }
  return unique;
}

function redirectUriProblem(uri: string): string | null {
  // The URL parser forgives whitespace and control characters; an exact URI has none.
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(uri)) return 'must not contain whitespace or control characters';
  if (uri.includes('#')) return 'must not contain a fragment';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.username !== '' || url.password !== '') return 'must not contain user credentials';
  if (url.protocol === 'https:') return url.hostname === '' ? 'has no host' : null;
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.includes(url.hostname)
      ? null
      : 'must use https (http only for localhost, 127.0.0.1 or [::1])';
  }
  return 'must use https (http only for localhost, 127.0.0.1 or [::1])';
}

function parseScope(scope: string): string[] {
  return [...new Set(scope.split(' ').filter(Boolean))];
}

/** Known scopes only, and never more than the caller holds (the same rule as API keys). */
function validateScope(caller: Principal, scope: string): string[] {
  const scopes = parseScope(scope);
  if (scopes.length === 0) throw AppError.invalid('scope', 'must name at least one scope');
  const unknown = scopes.filter((name) => !isScope(name));
  if (unknown.length > 0) throw AppError.invalid('scope', `unknown scope: ${unknown.join(', ')}`);
  const notHeld = missingScopes(caller.scopes, scopes);
  if (notHeld.length > 0) {
    throw AppError.invalid(
      'scope',
      `you cannot grant scopes you do not hold: ${notHeld.join(', ')}`,
    );
  }
  return scopes;
}
