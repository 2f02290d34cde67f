import { Injectable } from '@nestjs/common';
import { AppError, type Principal } from '#common';
import { ApiKeyService, looksLikeApiKey } from '#api-keys';
import { AccessTokenService } from './access-tokens.js';

export interface CredentialHeaders {
  authorization?: string | undefined;
  apiKey?: string | undefined;
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
      throw AppError.unauthorized('two different credentials in one request; send only one');
    }
    const credential = (bearer ?? apiKey)!;
    if (apiKey !== undefined || looksLikeApiKey(credential))
      return this.apiKeys.authenticate(credential);
    return this.tokens.verify(credential);
  }
}

function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw AppError.unauthorized('the Authorization header must be "Bearer <credential>"');
  return match[1];
}
