import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { AccessTokenService, OAuthClientsService } from '#auth';
import { AppError, toPublicId } from '#common';
import { OAuthError } from '../../http/oauth-error.js';
import { AttemptLimiter, TOKEN_ENDPOINT_POLICY } from './attempt-limiter.js';
import {
  addressOf,
  clientAttempt,
  clientCredentialsOf,
  type ClientCredentialsForm,
} from './client-authentication.js';

/**
 * RFC 7662 introspection of our access tokens. oidc-provider refuses to
 * introspect JWT access tokens ("structured tokens cannot be introspected"),
 * so this answers for them with our own verification (the same one the API's
 * guard uses); refresh tokens still go to the provider.
 */
@Injectable()
export class JwtIntrospection {
  constructor(
    private readonly clients: OAuthClientsService,
    private readonly tokens: AccessTokenService,
    private readonly limiter: AttemptLimiter,
  ) {}

  /**
   * Answers and returns true when the token is a JWT; false leaves the request
   * to the provider. Client authentication failures are thrown as OAuthError.
   */
  async handle(
    request: Request,
    response: Response,
    form: ClientCredentialsForm,
  ): Promise<boolean> {
    const token = form.token;
    if (typeof token !== 'string' || !looksLikeJwt(token)) return false;
    const client = await this.authenticate(request, form);
    response.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const principal = await this.tokens.verify(token).catch((error: unknown) => {
      if (error instanceof AppError) return null;
      throw error;
    });
    // Tokens of the client's own organisation and mode only: a sandbox client learns nothing of live tokens.
    if (
      principal === null ||
      principal.organizationId !== client.organizationId ||
      principal.mode !== client.mode
    ) {
      response.status(200).json({ active: false });
      return true;
    }
    const claims = decodeJwt(token);
    response.status(200).json({
      active: true,
      token_type: 'Bearer',
      scope: principal.scopes.join(' '),
      client_id: claims.client_id,
      sub: claims.sub,
      iss: claims.iss,
      aud: claims.aud,
      iat: claims.iat,
      exp: claims.exp,
      jti: claims.jti,
      org_id: toPublicId('organization', principal.organizationId),
      mode: principal.mode,
    });
    return true;
  }

  private async authenticate(request: Request, form: ClientCredentialsForm) {
    const { clientId, secret } = clientCredentialsOf(form, request.headers.authorization);
    const client = await this.clients.authenticate(clientId, secret);
    if (client) return client;
    await this.limiter.recordFailure(
      TOKEN_ENDPOINT_POLICY,
      'token',
      clientAttempt(request),
      addressOf(request),
    );
    throw new OAuthError('invalid_client', 'client authentication failed');
  }
}

function looksLikeJwt(token: string): boolean {
  try {
    return decodeProtectedHeader(token) !== undefined;
  } catch {
    return false;
  }
}
