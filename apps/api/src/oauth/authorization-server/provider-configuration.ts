import type { Configuration, JWK, KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { ALL_SCOPES, parsePublicId, toPublicId, type Mode } from '#common';
import type { OAuthClientsRepository, OidcPayloadsRepository, UsersService } from '#auth';
import { ACCESS_TOKEN_TTL_SECONDS, isFirstPartyClient, SIGNING_ALGORITHM } from '#auth';
import type { Sql } from '#database';
import { ClientsAdapter, PostgresOidcAdapter } from './oidc-adapter.js';
import { renderErrorPage } from './pages.js';

export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
const INTERACTION_TTL_SECONDS = 600;
const SESSION_TTL_SECONDS = 24 * 3600;

/** The paths oidc-provider answers (see AuthorizationServer.mount for their methods). */
export const PROVIDER_ROUTES = {
  authorization: '/oauth2/authorize',
  token: '/oauth2/token',
  revocation: '/oauth2/revoke',
  introspection: '/oauth2/introspect',
} as const;

export interface ProviderDependencies {
  sql: Sql;
  payloads: OidcPayloadsRepository;
  clients: OAuthClientsRepository;
  users: UsersService;
  publicUrl: string;
  /** The private JWK that signs access tokens now (the provider signs with nothing else). */
  signingKey: JWK;
  cookieKeys: string[];
  onGrantRevoked: (grantId: string) => Promise<void>;
  /**
   * The mode an SSO connection signs its people in to, or null when it is
   * disabled or gone (then their tokens are not renewed either).
   */
  ssoConnectionMode: (connectionId: string) => Promise<Mode | null>;
}

/**
 * oidc-provider as an OAuth 2.0 authorization server for this API only: one
 * resource server (the API at PUBLIC_URL) whose access tokens are RFC 9068
 * JWTs, authorization code with PKCE (S256 only; required for public clients),
 * client credentials, rotating refresh tokens, revocation and introspection.
 * No OpenID Connect extras (no ID tokens, userinfo or dynamic registration).
 */
export function providerConfiguration(deps: ProviderDependencies): Configuration {
  const { sql, users, publicUrl } = deps;
  const ownOrigin = new URL(publicUrl).origin;
  return {
    adapter: (name: string) =>
      name === 'Client'
        ? new ClientsAdapter(deps.clients)
        : new PostgresOidcAdapter(sql, deps.payloads, name, deps.onGrantRevoked),
    jwks: { keys: [deps.signingKey] },
    cookies: {
      keys: deps.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    routes: {
      ...PROVIDER_ROUTES,
      // Never routed to the provider (see AuthorizationServer.mount); the API serves its own JWKS.
      jwks: '/oauth2/jwks',
      userinfo: '/oauth2/userinfo',
    },
    scopes: ['offline_access', ...ALL_SCOPES],
    claims: { email: ['email'], profile: ['name'] },
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: SIGNING_ALGORITHM,
    },
    enabledJWA: {
      idTokenSigningAlgValues: [SIGNING_ALGORITHM],
      introspectionSigningAlgValues: [SIGNING_ALGORITHM],
    },
    extraClientMetadata: { properties: ['organization_id', 'mode'] },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    // A browser may call the token, revocation and introspection endpoints for a public client
    // (PKCE, no secret) from the origin of one of its redirect URIs, and for any client from the
    // service's own origin: its pages there (Swagger UI's Authorize dialog, where a developer
    // types a client's id and secret) are not cross-origin callers. From anywhere else a client
    // with a secret is refused (400 invalid_request): no other page should hold its secret.
    // ("null", the origin of sandboxed pages and of custom-scheme redirect URIs, matches none.)
    clientBasedCORS: (_ctx, origin, client) =>
      origin === ownOrigin ||
      (client.clientAuthMethod === 'none' &&
        origin !== 'null' &&
        (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin)),
    allowOmittingSingleRegisteredRedirectUri: false,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // Confidential clients may introspect tokens of their own organisation and mode only.
        allowedPolicy: async (ctx, client, token) => {
          if (client.clientAuthMethod === 'none') return token.clientId === client.clientId;
          if (!token.clientId) return false;
          const owner = await ctx.oidc.provider.Client.find(token.clientId);
          return (
            owner?.['organization_id'] === client['organization_id'] &&
            owner?.['mode'] === client['mode']
          );
        },
      },
      revocation: {
        enabled: true,
        // A client revokes only tokens issued to it. Another client's token is left alone and
        // answered 200 like an unknown one (RFC 7009 §2.2): an error would tell the caller
        // that the string it holds is a live token.
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => publicUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: async (ctx, indicator, client) => {
          if (indicator !== publicUrl)
            throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          refuseUnregisteredScopes(ctx, client.scope);
          return {
            scope: await boundedByAccount(ctx, client.scope ?? '', deps),
            audience: publicUrl,
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: SIGNING_ALGORITHM } },
          };
        },
      },
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      ClientCredentials: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Grant: REFRESH_TOKEN_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: SESSION_TTL_SECONDS,
      IdToken: ACCESS_TOKEN_TTL_SECONDS,
    },
    // Refresh tokens live as long as their grant, not the browser session that created it.
    expiresWithSession: () => false,
    // Only the code and refresh grants come here; a client registered for refresh_token gets one.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // The dashboard is the service itself: its people are not asked to consent to it.
    loadExistingGrant: async (ctx) => {
      const { client, session, result, provider } = ctx.oidc;
      const grantId =
        (result?.consent as { grantId?: string } | undefined)?.grantId ??
        (client ? session?.grantIdFor(client.clientId) : undefined);
      if (grantId) return provider.Grant.find(grantId);
      if (!client || !session?.accountId || !isFirstPartyClient(client.clientId)) return undefined;
      const grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      // The API's scopes are registered as the provider's scopes too (see `scopes`): both kinds.
      grant.addOIDCScope(client.scope ?? '');
      grant.addResourceScope(publicUrl, client.scope ?? '');
      await grant.save();
      return grant;
    },
    // The sign-in and consent pages are served by InteractionController.
    interactions: { url: (_ctx, interaction) => `/oauth2/interaction/${interaction.uid}` },
    findAccount: async (_ctx, accountId) => {
      const id = parsePublicId('user', accountId);
      const user = id === null ? null : await users.findById(id);
      if (!user || user.disabledAt !== null) return undefined;
      return {
        accountId,
        claims: () => ({ sub: accountId, email: user.email, name: user.name }),
      };
    },
    extraTokenClaims: async (ctx, token) => {
      // At the token endpoint the provider has the authenticated client already.
      const client = ctx.oidc.client ?? (await ctx.oidc.provider.Client.find(token.clientId!));
      if (!client) throw new errors.InvalidClient('client not found');
      let organizationId = client['organization_id'] as string;
      const accountId = 'accountId' in token ? token.accountId : undefined;
      const firstParty = isFirstPartyClient(client.clientId);
      // The dashboard's clients act for a person only, in the person's organisation.
      if (firstParty && !accountId) throw new errors.InvalidGrant('a person must sign in');
      if (accountId) {
        const user = await users.findById(parsePublicId('user', accountId)!);
        if (!user) throw new errors.InvalidGrant('the account no longer exists');
        if (firstParty) organizationId = toPublicId('organization', user.organizationId);
        // The consent pages allow only the client's own organisation; a grant that says otherwise is refused.
        if (toPublicId('organization', user.organizationId) !== organizationId) {
          throw new errors.InvalidGrant(
            'the account belongs to another organisation than the client',
          );
        }
      }
      // grant_id lets the API refuse the token once its grant is revoked (RevokedGrants).
      const grantId = 'grantId' in token ? token.grantId : undefined;
      return {
        org_id: organizationId,
        mode: client['mode'] as string,
        ...(grantId ? { grant_id: grantId } : {}),
      };
    },
    renderError: (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
      ctx.body = renderErrorPage(out.error, out.error_description);
    },
  };
}

/** What a person's tokens may carry whatever their groups: their own name and email. */
const ALWAYS_FOR_PEOPLE = ['profile', 'email'];

/**
 * The scopes of the resource for this request: the client's, bounded by what
 * the person may hold — for SSO people what their groups map to (kept on the
 * account at every sign-in), for people added through the API the scopes of
 * the credential that added them. Applied at consent, at the code exchange
 * and at every refresh, so a group taken away takes its scopes from the next
 * token, and a connection disabled or deleted stops its people's refreshes.
 * Every person's token passes here, so this is also where a connection's
 * people are kept to its mode: an SSO sign-in never yields a token of
 * another mode than the connection's.
 */
async function boundedByAccount(
  ctx: KoaContextWithOIDC,
  clientScope: string,
  { users, ssoConnectionMode }: ProviderDependencies,
): Promise<string> {
  const entities = ctx.oidc.entities as {
    AuthorizationCode?: { accountId?: string };
    RefreshToken?: { accountId?: string };
  };
  const accountId =
    entities.RefreshToken?.accountId ??
    entities.AuthorizationCode?.accountId ??
    ctx.oidc.session?.accountId;
  const userId = accountId ? parsePublicId('user', accountId) : null;
  const user = userId === null ? null : await users.findById(userId);
  if (!user) return clientScope;
  if (user.identitySource !== 'local') {
    // A disabled (or deleted) connection signs nobody in, and renews nobody's tokens either.
    const mode =
      user.ssoConnectionId === null ? null : await ssoConnectionMode(user.ssoConnectionId);
    if (mode === null) {
      throw new errors.InvalidGrant('the single sign-on connection of this account is disabled');
    }
    if (mode !== ctx.oidc.client?.['mode']) {
      throw new errors.InvalidGrant(
        `the single sign-on connection of this account signs in to ${mode} mode only`,
      );
    }
  }
  if (user.scopes === null) return clientScope;
  const allowed = new Set([...user.scopes, ...ALWAYS_FOR_PEOPLE]);
  return clientScope
    .split(' ')
    .filter((scope) => allowed.has(scope))
    .join(' ');
}

/**
 * The provider would silently drop scopes the client is not registered for;
 * we refuse them (RFC 6749 §5.2 invalid_scope) so a typo is not a quiet downgrade.
 */
function refuseUnregisteredScopes(ctx: KoaContextWithOIDC, registered: string | undefined): void {
  const requested = String(ctx.oidc.params?.scope ?? '')
    .split(' ')
    .filter(Boolean);
  const allowed = new Set([...(registered ?? '').split(' '), 'offline_access']);
  const refused = requested.filter((scope) => !allowed.has(scope));
  if (refused.length > 0) {
    throw new errors.InvalidScope(
      `scope not allowed for this client: ${refused.join(' ')}`,
      refused.join(' '),
    );
  }
}
