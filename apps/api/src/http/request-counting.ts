import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '#common';
import { CredentialResolver, credentialHeadersOf } from '#auth';
import { isScimPath, ScimTokensService, type ScimCaller } from '#scim';
import { AddressLimiter } from './address-limiter.js';
import { OAuthError } from './oauth-error.js';
import type { ApiRequest } from './request-context.js';
import { limitHeaders, RequestLimiter, rateLimited, type LimitVerdict } from './request-limiter.js';

/** What resolving a request's credential gave: its principal, or why there is none. */
type Credential = { principal: Principal } | { error: unknown };

const credentials = new WeakMap<Request, Credential>();
/** The SCIM token's organisation, for requests to /scim/v2 that present a valid one. */
const scimCallers = new WeakMap<Request, ScimCaller>();

/** The token, revocation and introspection endpoints answer in RFC 6749's form, 429s too. */
const OAUTH_FORM_PATHS = /^\/oauth2\/(token|revoke|introspect)\/?$/i;

/**
 * The one place every HTTP request of the API is counted, before any route,
 * body parser or not-found handler sees it, so that every response carries
 * X-RateLimit-Limit, -Remaining and -Reset (and the IETF RateLimit fields):
 * a request whose credential resolves counts against its organisation's
 * limits in its mode (RequestLimiter); any other — no credential, an invalid
 * one — against its source address (AddressLimiter). Over either, it is
 * refused with 429 before anything else happens. The credential is resolved
 * once, here: the guard reads the outcome (`credentialOf`). WebSocket
 * upgrades never reach Express and are counted by LiveSockets.
 */
@Injectable()
export class RequestCounting {
  constructor(
    private readonly resolver: CredentialResolver,
    private readonly limiter: RequestLimiter,
    private readonly addresses: AddressLimiter,
    private readonly scimTokens: ScimTokensService,
  ) {}

  readonly middleware = (request: Request, response: Response, next: NextFunction): void => {
    this.count(request as ApiRequest, response).then(() => next(), next);
  };

  private async count(request: ApiRequest, response: Response): Promise<void> {
    const credential = await this.resolve(request);
    credentials.set(request, credential);
    const scim = isScimPath(request.path) ? await this.scimCaller(request) : null;
    if (scim !== null) scimCallers.set(request, scim);
    const tenant =
      'principal' in credential
        ? credential.principal
        : scim === null
          ? null
          : { organizationId: scim.organizationId, mode: 'live' as const };
    const verdict =
      tenant !== null
        ? await this.limiter.check(tenant, request.id)
        : await this.addresses.check(request.ip ?? request.socket.remoteAddress ?? 'unknown');
    if (verdict === null) return;
    const headers = limitHeaders(verdict);
    response.set(headers);
    if (verdict.exceeded) throw refusal(request, verdict, headers);
  }

  /** The organisation of a SCIM token (the SCIM service's own credential), or null. */
  private async scimCaller(request: Request): Promise<ScimCaller | null> {
    const [scheme, token] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !token) return null;
    return this.scimTokens.authenticate(token);
  }

  private async resolve(request: Request): Promise<Credential> {
    try {
      return { principal: await this.resolver.resolve(credentialHeadersOf(request.rawHeaders)) };
    } catch (error) {
      return { error };
    }
  }
}

function refusal(
  request: Request,
  verdict: LimitVerdict,
  headers: Record<string, string>,
): OAuthError | ReturnType<typeof rateLimited> {
  const exceeded = verdict.exceeded!;
  if (!OAUTH_FORM_PATHS.test(request.path)) return rateLimited(exceeded, headers);
  return new OAuthError(
    'temporarily_unavailable',
    `too many requests; try again in ${exceeded.resetSeconds} seconds`,
    429,
    headers,
  );
}

/**
 * The principal of the request's credential, as RequestCounting resolved it,
 * or the error (401, 503) that resolving it gave.
 */
export function credentialOf(request: Request): Principal {
  const credential = credentials.get(request);
  if (credential === undefined) throw new Error('The request was not counted by RequestCounting');
  if ('error' in credential) throw credential.error;
  return credential.principal;
}

/**
 * The organisation whose SCIM token a request to /scim/v2 presents, as
 * RequestCounting resolved it (and counted the request against that
 * organisation's limits); null when it presents none that is valid.
 */
export function scimCallerOf(request: Request): ScimCaller | null {
  return scimCallers.get(request) ?? null;
}
