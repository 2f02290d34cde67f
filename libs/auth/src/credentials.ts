import { Injectable } from '@nestjs/common';
import { AppError, type Principal } from '#common';
import { ApiKeyService, looksLikeApiKey } from '#api-keys';
import { AccessTokenService } from './access-tokens.js';

export interface CredentialHeaders {
  authorization?: string | undefined;
  apiKey?: string | undefined;
}

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key'] as const;
/** How errors name each header (`details.field`). */
const HEADER_NAMES = { authorization: 'Authorization', 'x-api-key': 'X-API-Key' } as const;

/**
 * The credential headers of a request, from its raw header list: Node keeps
 * only the first of two `Authorization` headers (and joins two `X-API-Key`),
 * so a request carrying two would otherwise be judged by one of them.
 */
export function credentialHeadersOf(rawHeaders: readonly string[]): CredentialHeaders {
  const found: Partial<Record<(typeof CREDENTIAL_HEADERS)[number], string>> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase() as (typeof CREDENTIAL_HEADERS)[number];
    if (!CREDENTIAL_HEADERS.includes(name)) continue;
    if (found[name] !== undefined) {
      throw AppError.unauthorized(
        `more than one ${rawHeaders[i]} header; send one credential`,
        HEADER_NAMES[name],
      );
    }
    found[name] = rawHeaders[i + 1]!;
  }
  return { authorization: found.authorization, apiKey: found['x-api-key'] };
}

/**
 * Turns the credential headers of a request (HTTP or WebSocket) into a
 * principal. `Authorization: Bearer` carries a JWT or an API key, `X-API-Key`
 * an API key; two different credentials in one request are refused.
 */
@Injectable()
export class CredentialResolver {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly apiKeys: ApiKeyService,
  ) {}

  async resolve(headers: CredentialHeaders): Promise<Principal> {
    const bearer = parseBearer(headers.authorization);
    const apiKey = headers.apiKey?.trim() || undefined;
    if (bearer === undefined && apiKey === undefined) {
      throw AppError.unauthorized('no credential: send Authorization: Bearer <token> or X-API-Key');
    }
    if (bearer !== undefined && apiKey !== undefined && bearer !== apiKey) {
      throw AppError.unauthorized(
        'two different credentials in one request; send only one',
        HEADER_NAMES['x-api-key'],
      );
    }
    const credential = (bearer ?? apiKey)!;
    if (apiKey !== undefined || looksLikeApiKey(credential)) {
      // The key's own errors name the header it came in.
      const header = bearer === undefined ? HEADER_NAMES['x-api-key'] : HEADER_NAMES.authorization;
      return this.apiKeys.authenticate(credential).catch((error: unknown) => {
        throw error instanceof AppError && error.code === 'UNAUTHORIZED'
          ? AppError.unauthorized(String(error.details.issue), header)
          : error;
      });
    }
    return this.tokens.verify(credential);
  }
}

function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw AppError.unauthorized('the Authorization header must be "Bearer <credential>"');
  return match[1];
}
