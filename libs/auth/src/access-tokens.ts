import { Injectable } from '@nestjs/common';
import { errors, jwtVerify, type JWTHeaderParameters } from 'jose';
import { AppError, parsePublicId, type Principal } from '#common';
import { AppSettings } from '#config';
import { RevokedGrants } from './revoked-grants.js';
import { SigningKeyService } from './signing-keys.service.js';
import { ACCESS_TOKEN_TYPE, SIGNING_ALGORITHM } from './token-constants.js';

/**
 * Verifies access tokens (the authorization server issues them): ES256, `typ`
 * at+jwt, `iss` and `aud` PUBLIC_URL, not expired, grant not revoked.
 */
@Injectable()
export class AccessTokenService {
  constructor(
    private readonly keys: SigningKeyService,
    private readonly settings: AppSettings,
    private readonly revokedGrants: RevokedGrants,
  ) {}

  /** The principal of a valid token, or an UNAUTHORIZED error saying what is wrong with it. */
  async verify(token: string): Promise<Principal> {
    let payload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header: JWTHeaderParameters) => {
          const key = header.kid ? await this.keys.publicKey(header.kid) : null;
          if (!key) throw new errors.JWKSNoMatchingKey();
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
    // Tokens of the code flow name their grant; client_credentials tokens have none.
    if (
      typeof payload.grant_id === 'string' &&
      (await this.revokedGrants.isRevoked(payload.grant_id))
    ) {
      throw AppError.unauthorized('access token revoked');
    }
    return {
      credential: 'access_token',
      subject: payload.sub!,
      organizationId,
      mode,
      scopes: payload.scope.split(' ').filter(Boolean),
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
