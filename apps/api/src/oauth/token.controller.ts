import { Body, Controller, Header, Headers, HttpCode, Post, VERSION_NEUTRAL } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { isScope } from '#common';
import { AccessTokenService, OAuthClientsService, type IssuedToken } from '#auth';
import { Public } from '../http/auth.decorator.js';
import { OAuthError } from '../http/oauth-error.js';
import { OAuthErrorDto, TokenRequestDto, TokenResponseDto } from './token.dto.js';

const MAX_FIELD_LENGTH = 4096;

@ApiTags('OAuth 2.0')
@Controller({ path: 'oauth2', version: VERSION_NEUTRAL })
export class TokenController {
  constructor(
    private readonly clients: OAuthClientsService,
    private readonly tokens: AccessTokenService,
  ) {}

  @Post('token')
  @Public()
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    summary: 'Get an access token',
    description: 'RFC 6749 token endpoint, form-encoded. Errors use the RFC 6749 form.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: TokenRequestDto })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, description: 'OAuth error', type: OAuthErrorDto })
  @ApiResponse({ status: 401, description: 'Client authentication failed', type: OAuthErrorDto })
  async token(
    @Body() body: unknown,
    @Headers('content-type') contentType?: string,
    @Headers('authorization') authorization?: string,
  ): Promise<IssuedToken> {
    if (!contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const form = formFields(body);
    const client = await this.authenticateClient(form, authorization);
    const grantType = form.grant_type;
    if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials') {
      throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    }
    if (!client.grantTypes.includes('client_credentials')) {
      throw new OAuthError(
        'unauthorized_client',
        'this client may not use the client_credentials grant',
      );
    }
    const requested =
      form.scope === undefined
        ? client.scopes
        : [...new Set(form.scope.split(' ').filter(Boolean))];
    const unknown = requested.filter((scope) => !isScope(scope) || !client.scopes.includes(scope));
    if (unknown.length > 0)
      throw new OAuthError(
        'invalid_scope',
        `scope not allowed for this client: ${unknown.join(' ')}`,
      );
    if (requested.length === 0)
      throw new OAuthError('invalid_scope', 'scope must name at least one scope');
    return this.tokens.issue({
      clientId: client.clientId,
      organizationId: client.organizationId,
      mode: client.mode,
      scopes: requested,
    });
  }

  /** client_secret_basic or client_secret_post, never both (RFC 6749 §2.3). */
  private async authenticateClient(
    form: Record<string, string>,
    authorization: string | undefined,
  ) {
    const basic = parseBasic(authorization);
    if (basic && (form.client_id !== undefined || form.client_secret !== undefined)) {
      throw new OAuthError(
        'invalid_request',
        'send client credentials either in the Authorization header or in the body, not both',
      );
    }
    const clientId = basic?.clientId ?? form.client_id;
    const secret = basic?.secret ?? form.client_secret;
    if (clientId === undefined || secret === undefined) {
      throw new OAuthError(
        'invalid_client',
        'client authentication required (client_id and client_secret)',
        401,
        basicChallenge(basic),
      );
    }
    const client = await this.clients.authenticate(clientId, secret);
    if (!client)
      throw new OAuthError(
        'invalid_client',
        'client authentication failed',
        401,
        basicChallenge(basic),
      );
    return client;
  }
}

/** Only flat string fields of an urlencoded body; anything else means the body was not a form. */
function formFields(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null || Object.keys(body).length === 0) {
    throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string')
      throw new OAuthError('invalid_request', `${name} must appear once`);
    if (value.length > MAX_FIELD_LENGTH)
      throw new OAuthError('invalid_request', `${name} is too long`);
    fields[name] = value;
  }
  return fields;
}

function parseBasic(header: string | undefined): { clientId: string; secret: string } | null {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'malformed Basic credentials', 401);
  return {
    clientId: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

function basicChallenge(basic: unknown): Record<string, string> {
  return basic ? { 'WWW-Authenticate': 'Basic realm="oauth2", charset="UTF-8"' } : {};
}
