import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsString,
  Length,
  MaxLength,
} from 'class-validator';
import {
  DEFAULT_GRANT_TYPES,
  DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD,
  MAX_REDIRECT_URIS,
  OAUTH_GRANT_TYPES,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type OAuthGrantType,
  type TokenEndpointAuthMethod,
} from '#auth';
import { ALL_SCOPES } from '#common';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { V1List } from '../../http/v1-list.dto.js';
import { SingleLineText } from '../../http/text-rules.js';

const MAX_URI_LENGTH = 2000;
const MAX_SCOPE_LENGTH = 1000;
const SCOPE_DESCRIPTION = `Space-separated scopes (${ALL_SCOPES.join(', ')}); never more than your own`;
const GRANT_TYPES_DESCRIPTION =
  'refresh_token needs authorization_code; a public client (none) cannot use client_credentials';

const ClientNameRules = () =>
  applyDecorators(
    IsString({ message: 'must be a string' }),
    Length(1, 200, { message: 'must be 1 to 200 characters' }),
    SingleLineText(),
  );

const ScopeRules = () =>
  applyDecorators(
    IsString({ message: 'must be a space-separated string of scopes' }),
    Length(1, MAX_SCOPE_LENGTH, { message: `must be 1 to ${MAX_SCOPE_LENGTH} characters` }),
  );

const RedirectUrisField = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: [String],
      maxItems: MAX_REDIRECT_URIS,
      example: ['https://app.example.com/callback', 'http://127.0.0.1:8765/callback'],
      description:
        'Exact absolute URIs: https, or http only for localhost, 127.0.0.1 and [::1]; no fragment. authorization_code needs at least one.',
    }),
    Optional(),
    IsArray({ message: 'must be an array of URIs' }),
    ArrayMaxSize(MAX_REDIRECT_URIS, { message: `can list at most ${MAX_REDIRECT_URIS} URIs` }),
    IsString({ each: true, message: 'each redirect URI must be a string' }),
    MaxLength(MAX_URI_LENGTH, {
      each: true,
      message: `each redirect URI must be at most ${MAX_URI_LENGTH} characters`,
    }),
  );

const GrantTypesRules = () =>
  applyDecorators(
    Optional(),
    IsArray({ message: 'must be an array of grant types' }),
    ArrayMinSize(1, { message: 'must name at least one grant type' }),
    IsIn(OAUTH_GRANT_TYPES, {
      each: true,
      message: `each grant type must be one of ${OAUTH_GRANT_TYPES.join(', ')}`,
    }),
  );

const AuthMethodRules = () =>
  applyDecorators(
    Optional(),
    IsIn(TOKEN_ENDPOINT_AUTH_METHODS, oneOf(TOKEN_ENDPOINT_AUTH_METHODS)),
  );

const GRANT_TYPES_SCHEMA = {
  type: 'array' as const,
  items: { type: 'string' as const, enum: [...OAUTH_GRANT_TYPES] },
  minItems: 1,
};

/** RFC 7591 client metadata of a new client. */
export class CreateOAuthClientDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Field notes app' })
  @ClientNameRules()
  client_name!: string;

  @RedirectUrisField()
  redirect_uris?: string[];

  @ApiPropertyOptional({
    ...GRANT_TYPES_SCHEMA,
    default: DEFAULT_GRANT_TYPES,
    description: GRANT_TYPES_DESCRIPTION,
  })
  @GrantTypesRules()
  grant_types?: OAuthGrantType[];

  @ApiPropertyOptional({
    enum: TOKEN_ENDPOINT_AUTH_METHODS,
    default: DEFAULT_TOKEN_ENDPOINT_AUTH_METHOD,
    description: '`none` makes a public client: no secret is issued',
  })
  @AuthMethodRules()
  token_endpoint_auth_method?: TokenEndpointAuthMethod;

  @ApiProperty({
    maxLength: MAX_SCOPE_LENGTH,
    example: 'remote-viewing:read remote-viewing:write',
    description: SCOPE_DESCRIPTION,
  })
  @ScopeRules()
  scope!: string;
}

export const CREATE_OAUTH_CLIENT_EXAMPLES: RequestExamples = {
  server: {
    summary: 'A server-to-server client (client_credentials)',
    value: {
      client_name: 'Nightly batch job',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'remote-viewing:read remote-viewing:write',
    },
  },
  app: {
    summary: 'A public app that signs people in (authorization code with PKCE)',
    value: {
      client_name: 'Field notes app',
      redirect_uris: ['https://app.example.com/callback', 'http://127.0.0.1:8765/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      scope: 'remote-viewing:read profile',
    },
  },
};

export const UPDATE_OAUTH_CLIENT_EXAMPLES: RequestExamples = {
  rename: { summary: 'A new name', value: { client_name: 'Nightly batch job (EU)' } },
};

/** The fields to change; the client as a whole must still satisfy the rules of a new one. */
export class UpdateOAuthClientDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: 'Field notes app' })
  @Optional()
  @ClientNameRules()
  client_name?: string;

  @RedirectUrisField()
  redirect_uris?: string[];

  @ApiPropertyOptional({ ...GRANT_TYPES_SCHEMA, description: GRANT_TYPES_DESCRIPTION })
  @GrantTypesRules()
  grant_types?: OAuthGrantType[];

  @ApiPropertyOptional({
    enum: TOKEN_ENDPOINT_AUTH_METHODS,
    description:
      'Switching to `none` drops the secret; switching a public client to a secret method issues a new secret, returned once in `client_secret`.',
  })
  @AuthMethodRules()
  token_endpoint_auth_method?: TokenEndpointAuthMethod;

  @ApiPropertyOptional({
    maxLength: MAX_SCOPE_LENGTH,
    example: 'remote-viewing:read remote-viewing:write',
    description: SCOPE_DESCRIPTION,
  })
  @Optional()
  @ScopeRules()
  scope?: string;
}

/** A registered client (RFC 7591 client information response), never with its secret. */
export class OAuthClientDto {
  @ApiProperty({ example: 'cli_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  client_id!: string;

  @ApiProperty()
  client_name!: string;

  @ApiProperty({ type: [String] })
  redirect_uris!: string[];

  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...OAUTH_GRANT_TYPES] } })
  grant_types!: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ['code'] },
    description: '["code"] with the authorization_code grant, else []',
  })
  response_types!: string[];

  @ApiProperty({ enum: TOKEN_ENDPOINT_AUTH_METHODS })
  token_endpoint_auth_method!: string;

  @ApiProperty({ example: 'remote-viewing:read remote-viewing:write' })
  scope!: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  client_id_issued_at!: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'Confidential clients only: when the secret expires in Unix seconds; 0 = never',
    example: 0,
  })
  client_secret_expires_at?: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

/** Create and PATCH: carries `client_secret` only when this call issued one. */
export class OAuthClientWithSecretDto extends OAuthClientDto {
  @ApiPropertyOptional({
    description:
      'Issued by this call (confidential clients only). Shown only in this response; store it now.',
  })
  client_secret?: string;
}

export class RotatedOAuthClientDto extends OAuthClientDto {
  @ApiProperty({
    description: 'The new secret; the old one stopped working. Shown only in this response.',
  })
  client_secret!: string;
}

export class OAuthClientListDto extends V1List(OAuthClientDto) {}
