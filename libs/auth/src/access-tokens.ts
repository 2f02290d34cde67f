import { Injectable } from '@nestjs/common';
import { errors, jwtVerify, type JWTHeaderParameters } from 'jose';
import { AppError, parsePublicId, type Principal } from '#common';
import { AppSettings } from '#config';
import { RevokedGrants } from './revoked-grants.js';
import { SigningKeyService } from './signing-keys.service.js';
import { ACCESS_TOKEN_TYPE, SIGNING_ALGORITHM } from './token-constants.js';
import { VerifiedTokenCache, type VerifiedToken } from './verified-token-cache.js';

/**
 * Verifies access tokens (the authorization server issues them): ES256, `typ`
 * at+jwt, `iss` and `aud` PUBLIC_URL, not expired, grant not revoked. A token
 * seen before skips the signature (VerifiedTokenCache); the grant is asked
 * about on every use.
 */
@Injectable()
export class AccessTokenService {
  constructor(
    private readonly keys: SigningKeyService,
    private readonly settings: AppSettings,
    private readonly revokedGrants: RevokedGrants,
    private readonly cache: VerifiedTokenCache,
  ) {}

  /** The principal of a valid token, or an UNAUTHORIZED error saying what is wrong with it. */
  async verify(token: string): Promise<Principal> {
    const cacheKey = this.cache.enabled ? VerifiedTokenCache.keyOf(token) : null;
    let verified = cacheKey === null ? null : this.cache.get(cacheKey);
    if (verified === null) {
      verified = await this.verifySignature(token);
      if (cacheKey !== null) this.cache.set(cacheKey, verified);
    }
    // Tokens of the code flow name their grant; client_credentials tokens have none.
    if (verified.grantId !== null && (await this.revokedGrants.isRevoked(verified.grantId))) {
      throw AppError.unauthorized('access token revoked');
    }
    return verified.principal;
  }

  private async verifySignature(token: string): Promise<VerifiedToken> {
    let payload;
    let kid: string | undefined;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header: JWTHeaderParameters) => {
          const key = header.kid ? await this.keys.publicKey(header.kid) : null;
          if (!key) throw new errors.JWKSNoMatchingKey();
          kid = header.kid;
          return key;
        },
        {
          algorithms: [SIGNING_ALGORITHM],
          typ: ACCESS_TOKEN_TYPE,
          issuer: this.settings.publicUrl,
          audience: this.settings.publicUrl,
          requiredClaims: ['exp', 'iat', 'sub', 'org_id', 'mode', 'scope'],
        },
      ));
    } catch (error) {
      throw AppError.unauthorized(describeTokenError(error));
    }
    const organizationId =
      typeof payload.org_id === 'string' ? parsePublicId('organization', payload.org_id) : null;
    const mode = payload.mode;
    if (
      organizationId === null ||
      (mode !== 'live' && mode !== 'test') ||
      typeof payload.scope !== 'string'
    ) {
      throw AppError.unauthorized('access token has malformed claims');
    }
    return {
      // Shared by every request the token makes while cached: frozen, so none can change another's.
      principal: Object.freeze({
        credential: 'access_token',
        subject: payload.sub!,
        organizationId,
        mode,
        scopes: Object.freeze(payload.scope.split(' ').filter(Boolean)),
      }),
      kid: kid!,
      grantId: typeof payload.grant_id === 'string' ? payload.grant_id : null,
      expiresAt: payload.exp! * 1000,
    };
  }
}

function describeTokenError(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'access token expired';
  if (error instanceof errors.JWTClaimValidationFailed)
    return `access token claim ${error.claim} is invalid`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'access token algorithm not allowed';
  if (error instanceof errors.JWKSNoMatchingKey) return 'access token signed by an unknown key';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'access token signature is invalid';
  return 'malformed access token';
}
