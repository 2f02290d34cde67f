import { Injectable, Logger } from '@nestjs/common';
import type { Express, NextFunction, Request, Response } from 'express';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import {
  OAuthClientsRepository,
  OidcPayloadsRepository,
  RevokedGrants,
  ServerSecretsService,
  SigningKeyService,
  UsersService,
  verifySecret,
} from '#auth';
import { SsoSignInService } from '#sso';
import { AppSettings } from '#config';
import { Sql } from '#database';
import {
  isDependencyUnavailable,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from '../../http/error-translation.js';
import { OAuthError } from '../../http/oauth-error.js';
import { AttemptLimiter, TOKEN_ENDPOINT_POLICY } from './attempt-limiter.js';
import { EndpointRateLimiter } from './endpoint-rate-limiter.js';
import {
  addressOf,
  clientAttempt,
  clientIdOf,
  formOf,
  type ClientCredentialsForm,
} from './client-authentication.js';
import { JwtIntrospection } from './jwt-introspection.js';
import { PROVIDER_ROUTES, providerConfiguration } from './provider-configuration.js';

type Handler = (request: Request, response: Response) => Promise<void> | void;

/** The endpoints whose failures count towards brute-force limits. */
const GUARDED_ROUTES = new Set<string>([
  PROVIDER_ROUTES.token,
  PROVIDER_ROUTES.revocation,
  PROVIDER_ROUTES.introspection,
]);
const ERROR_EVENTS = ['grant.error', 'introspection.error', 'revocation.error'] as const;

/**
 * The OAuth 2.0 authorization server: oidc-provider behind Express routes.
 * The provider's key store is fixed when it is built, so it is rebuilt
 * whenever the active signing key changes (everything it stores lives in
 * PostgreSQL, so nothing is lost).
 */
@Injectable()
export class AuthorizationServer {
  private readonly logger = new Logger(AuthorizationServer.name);
  private current: { kid: string; provider: Provider; handler: Handler } | null = null;
  private building: Promise<{ provider: Provider; handler: Handler }> | null = null;

  constructor(
    private readonly settings: AppSettings,
    private readonly sql: Sql,
    private readonly payloads: OidcPayloadsRepository,
    private readonly clients: OAuthClientsRepository,
    private readonly keys: SigningKeyService,
    private readonly users: UsersService,
    private readonly secrets: ServerSecretsService,
    private readonly limiter: AttemptLimiter,
    private readonly rate: EndpointRateLimiter,
    private readonly jwtIntrospection: JwtIntrospection,
    private readonly revokedGrants: RevokedGrants,
    private readonly sso: SsoSignInService,
  ) {}

  /** The provider signing with the current key (the interaction pages use it too). */
  async provider(): Promise<Provider> {
    return (await this.instance()).provider;
  }

  /**
   * Registers the provider's endpoints as Express routes with their methods,
   * so a wrong method gets the API's 405 and everything else under /oauth2 stays Nest's.
   */
  mount(app: Express): void {
    const handle = (request: Request, response: Response, next: NextFunction) => {
      this.handle(request, response).catch((error: unknown) =>
        next(isDependencyUnavailable(error) ? temporarilyUnavailable() : error),
      );
    };
    app.get(PROVIDER_ROUTES.authorization, handle);
    // Where the provider resumes an authorization request after sign-in and consent.
    app.get(`${PROVIDER_ROUTES.authorization}/:uid`, handle);
    app.post(PROVIDER_ROUTES.token, handle);
    app.post(PROVIDER_ROUTES.revocation, handle);
    app.post(PROVIDER_ROUTES.introspection, handle);
  }

  private async handle(request: Request, response: Response): Promise<void> {
    dropUntrustedForwardingHeaders(request);
    if (request.method === 'POST' && GUARDED_ROUTES.has(request.path)) {
      const form = formOf(request);
      const busy = await this.rate.token(
        clientIdOf(form, request.headers.authorization),
        addressOf(request),
      );
      if (busy > 0) {
        throw new OAuthError(
          'temporarily_unavailable',
          `too many requests; try again in ${busy} seconds`,
          429,
          { 'Retry-After': String(busy) },
        );
      }
      const wait = await this.limiter.retryAfter(
        TOKEN_ENDPOINT_POLICY,
        'token',
        clientAttempt(request),
        addressOf(request),
      );
      if (wait > 0) {
        throw new OAuthError(
          'temporarily_unavailable',
          `too many failed attempts; try again in ${wait} seconds`,
          429,
          { 'Retry-After': String(wait) },
        );
      }
      if (request.path === PROVIDER_ROUTES.introspection) {
        if (await this.jwtIntrospection.handle(request, response, form)) return;
      }
      if (request.path === PROVIDER_ROUTES.token) {
        await this.defaultScope(form, request, (await this.instance()).provider);
      }
    }
    await (await this.instance()).handler(request, response);
  }

  /**
   * A client_credentials request without `scope` gets every scope the client
   * is registered with (RFC 6749 §3.3 lets the server pick a default); the
   * provider itself would issue a token with none.
   */
  private async defaultScope(
    form: ClientCredentialsForm,
    request: Request,
    provider: Provider,
  ): Promise<void> {
    if (form.grant_type !== 'client_credentials' || form.scope !== undefined) return;
    const clientId = clientIdOf(form, request.headers.authorization);
    if (clientId === undefined) return;
    const client = await provider.Client.find(clientId);
    if (client?.scope) form.scope = client.scope;
  }

  private async instance(): Promise<{ provider: Provider; handler: Handler }> {
    const { kid } = await this.keys.signingKey();
    if (this.current?.kid === kid) return this.current;
    this.building ??= this.build().finally(() => {
      this.building = null;
    });
    return this.building;
  }

  private async build(): Promise<{ provider: Provider; handler: Handler }> {
    const signing = await this.keys.signingKey();
    const provider = new Provider(
      this.settings.publicUrl,
      providerConfiguration({
        sql: this.sql,
        payloads: this.payloads,
        clients: this.clients,
        users: this.users,
        publicUrl: this.settings.publicUrl,
        signingKey: signing.privateJwk,
        cookieKeys: [await this.secrets.get('oauth-cookie-key')],
        onGrantRevoked: (grantId) => this.revokedGrants.revoke(grantId),
        ssoConnectionMode: (connectionId) => this.sso.connectionMode(connectionId),
      }),
    );
    // X-Forwarded-* are honoured, but only from the proxies Express trusts (see below).
    provider.proxy = true;
    // Secrets are stored as scrypt hashes; the provider compares through this (its documented extension point).
    provider.Client.prototype.compareClientSecret = function (
      this: { clientSecret?: string },
      actual,
    ) {
      return this.clientSecret ? verifySecret(actual, this.clientSecret) : false;
    };
    provider.use(outagesAsTemporarilyUnavailable);
    provider.use(tokenResponseAsSpecified);
    for (const event of ERROR_EVENTS) {
      // The typings miss the *.error events, which the provider documents and emits.
      (provider as unknown as NodeJS.EventEmitter).on(
        event,
        (ctx: KoaContextWithOIDC, error: { error?: string }) => {
          // Only secret guessing counts: codes and refresh tokens are 256-bit random, and counting
          // their failures would let anyone lock a public client out for all its users.
          if (error.error !== 'invalid_client') return;
          const request = ctx.req as Request;
          this.limiter
            .recordFailure(
              TOKEN_ENDPOINT_POLICY,
              'token',
              clientAttempt(request),
              addressOf(request),
            )
            .catch((error: unknown) =>
              this.logger.warn({ err: error }, 'could not record a failure'),
            );
        },
      );
    }
    provider.on('server_error', (ctx: KoaContextWithOIDC, error: Error) => {
      // Kept for outagesAsTemporarilyUnavailable, which answers after the provider has.
      ctx.state.serverError = error;
      if (isDependencyUnavailable(error)) return;
      this.logger.error({ err: error }, 'authorization server error');
    });
    const handler = provider.callback() as unknown as Handler;
    this.current = { kid: signing.kid, provider, handler };
    this.logger.log({ kid: signing.kid }, 'authorization server ready');
    return this.current;
  }
}

const FORWARDING_HEADERS = ['x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-for'];

/**
 * Koa trusts X-Forwarded-* from anyone once `proxy` is on; Express trusts only
 * the proxies of its `trust proxy` setting. The provider gets Express's view.
 */
export function dropUntrustedForwardingHeaders(request: Request): void {
  const trusted = request.app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  if (trusted(request.socket.remoteAddress ?? '', 0)) return;
  for (const header of FORWARDING_HEADERS) delete request.headers[header];
}

/** The OAuth form of "the database cannot be reached": RFC 6749's temporarily_unavailable, 503. */
function temporarilyUnavailable(): OAuthError {
  return new OAuthError(
    'temporarily_unavailable',
    'the authorization server cannot reach its database; try again shortly',
    503,
    { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * The provider answers any failure as 500 `server_error`; a failure to reach
 * PostgreSQL is no fault of the request and passes: 503 with `Retry-After`,
 * `temporarily_unavailable` in the JSON answers, the error page kept for browsers.
 */
async function outagesAsTemporarilyUnavailable(
  ctx: KoaContextWithOIDC,
  next: () => Promise<void>,
): Promise<void> {
  await next();
  if (ctx.status !== 500 || !isDependencyUnavailable(ctx.state.serverError)) return;
  const unavailable = temporarilyUnavailable();
  ctx.status = unavailable.status;
  ctx.set({ ...unavailable.headers, 'Cache-Control': 'no-store' });
  if (typeof ctx.body === 'object' && ctx.body !== null) {
    ctx.body = { error: unavailable.error, error_description: unavailable.description };
  }
}

const GRANT_NOT_ALLOWED = 'requested grant type is not allowed for this client';

/**
 * The token endpoint's answers as the spec and RFC 6749 want them: the token
 * response carries `issued_at` (Unix seconds), and a grant the client is not
 * registered for is `unauthorized_client` (§5.2), which the provider calls invalid_request.
 */
async function tokenResponseAsSpecified(
  ctx: KoaContextWithOIDC,
  next: () => Promise<void>,
): Promise<void> {
  await next();
  if (ctx.oidc?.route !== 'token') return;
  const body = ctx.body as Record<string, unknown> | undefined;
  if (ctx.status === 200 && body?.access_token) {
    ctx.body = { ...body, issued_at: Math.floor(Date.now() / 1000) };
  } else if (body?.error === 'invalid_request' && body.error_description === GRANT_NOT_ALLOWED) {
    ctx.body = { ...body, error: 'unauthorized_client' };
  }
}
