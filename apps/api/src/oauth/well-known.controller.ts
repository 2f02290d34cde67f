import { Get, Header, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ALL_SCOPES } from '#common';
import { AppSettings } from '#config';
import { SigningKeyService } from '#auth';
import { ApiController } from '../http/api-controller.decorator.js';
import { Public } from '../http/auth.decorator.js';

const ADDRESS = { type: 'string', format: 'uri' } as const;
const NAMES = { type: 'array', items: { type: 'string' } } as const;

@ApiTags('OAuth 2.0')
@ApiController({ path: '.well-known', version: VERSION_NEUTRAL })
export class WellKnownController {
  constructor(
    private readonly keys: SigningKeyService,
    private readonly settings: AppSettings,
  ) {}

  @Get('jwks.json')
  @Public()
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({ summary: 'Public keys that verify access tokens (JWKS)' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['keys'],
      properties: { keys: { type: 'array', items: { type: 'object' } } },
    },
  })
  jwks() {
    return this.keys.jwks();
  }

  @Get('oauth-authorization-server')
  @Public()
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({ summary: 'Authorization server metadata (RFC 8414)' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'],
      properties: {
        issuer: ADDRESS,
        authorization_endpoint: ADDRESS,
        token_endpoint: ADDRESS,
        revocation_endpoint: ADDRESS,
        introspection_endpoint: ADDRESS,
        jwks_uri: ADDRESS,
        grant_types_supported: NAMES,
        response_types_supported: NAMES,
        response_modes_supported: NAMES,
        code_challenge_methods_supported: NAMES,
        token_endpoint_auth_methods_supported: NAMES,
        revocation_endpoint_auth_methods_supported: NAMES,
        introspection_endpoint_auth_methods_supported: NAMES,
        scopes_supported: NAMES,
        authorization_response_iss_parameter_supported: { type: 'boolean' },
        service_documentation: ADDRESS,
      },
    },
  })
  metadata() {
    const base = this.settings.publicUrl;
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth2/authorize`,
      token_endpoint: `${base}/oauth2/token`,
      revocation_endpoint: `${base}/oauth2/revoke`,
      introspection_endpoint: `${base}/oauth2/introspect`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: [
        'client_secret_basic',
        'client_secret_post',
        'none',
      ],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [...ALL_SCOPES, 'offline_access'],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/docs`,
    };
  }
}
