import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { OAuthClientRegistryService, type OAuthClientWithSecret } from '#auth';
import { Scope, type Principal } from '#common';
import type { OAuthClientEntity } from '#auth';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { Audited } from '../../http/audited.decorator.js';
import { V1ListQueryDto, v1Page } from '../../http/v1-list.dto.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import {
  CREATE_OAUTH_CLIENT_EXAMPLES,
  CreateOAuthClientDto,
  OAuthClientDto,
  OAuthClientListDto,
  OAuthClientWithSecretDto,
  RotatedOAuthClientDto,
  UPDATE_OAUTH_CLIENT_EXAMPLES,
  UpdateOAuthClientDto,
} from './oauth-client-v1.dto.js';

const CLIENT_ID_EXAMPLE = 'cli_01jh2x7v4ke8rbk3a8y0v0d7qz';

/** 409 of the routes that change a client: the bootstrap client, or a public client's secret. */
const Conflict = (description: string) =>
  ApiResponse({ status: 409, description, type: ErrorEnvelopeDto });
const BOOTSTRAP_CONFLICT = 'The bootstrap client is managed by the environment';

@ApiTags('OAuth clients (v1)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'oauth-clients', version: '1' })
export class OAuthClientsController {
  constructor(private readonly registry: OAuthClientRegistryService) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('oauth_client.created')
  @ApiOperation({
    summary: 'Register an OAuth client',
    description:
      "RFC 7591 metadata. The client belongs to your organisation and mode and may hold only scopes you hold. A confidential client's `client_secret` is shown once.",
  })
  @ApiJsonBody(CreateOAuthClientDto, CREATE_OAUTH_CLIENT_EXAMPLES)
  @ApiCreatedResponse({ type: OAuthClientWithSecretDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateOAuthClientDto,
  ): Promise<OAuthClientWithSecretDto> {
    return toWithSecretDto(
      await this.registry.create(principal, {
        clientName: body.client_name,
        scope: body.scope,
        ...(body.redirect_uris ? { redirectUris: body.redirect_uris } : {}),
        ...(body.grant_types ? { grantTypes: body.grant_types } : {}),
        ...(body.token_endpoint_auth_method
          ? { tokenEndpointAuthMethod: body.token_endpoint_auth_method }
          : {}),
      }),
    );
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: "List your organisation's OAuth clients in the caller's mode, newest first",
  })
  @ApiOkResponse({ type: OAuthClientListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V1ListQueryDto,
  ): Promise<OAuthClientListDto> {
    return v1Page(query, (page) => this.registry.list(principal, page), toOAuthClientDto);
  }

  @Get(':client_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: 'Read an OAuth client (never its secret)' })
  @ResourceParam('client_id', CLIENT_ID_EXAMPLE, 'OAuth client')
  @ApiOkResponse({ type: OAuthClientDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('client_id') clientId: string,
  ): Promise<OAuthClientDto> {
    return toOAuthClientDto(await this.registry.get(principal, clientId));
  }

  @Patch(':client_id')
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('oauth_client.updated')
  @ApiOperation({
    summary: 'Change an OAuth client',
    description:
      'Changes the fields sent; the client must still satisfy every rule of a new one. Switching `token_endpoint_auth_method` to `none` drops the secret; switching a public client to `client_secret_basic` or `client_secret_post` issues a secret, returned once in `client_secret`. Needs every scope the client holds (else 403).',
  })
  @ResourceParam('client_id', CLIENT_ID_EXAMPLE, 'OAuth client')
  @Conflict(BOOTSTRAP_CONFLICT)
  @ApiJsonBody(UpdateOAuthClientDto, UPDATE_OAUTH_CLIENT_EXAMPLES)
  @ApiOkResponse({ type: OAuthClientWithSecretDto })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('client_id') clientId: string,
    @Body() body: UpdateOAuthClientDto,
  ): Promise<OAuthClientWithSecretDto> {
    return toWithSecretDto(
      await this.registry.update(principal, clientId, {
        ...(body.client_name !== undefined ? { clientName: body.client_name } : {}),
        ...(body.redirect_uris !== undefined ? { redirectUris: body.redirect_uris } : {}),
        ...(body.grant_types !== undefined ? { grantTypes: body.grant_types } : {}),
        ...(body.token_endpoint_auth_method !== undefined
          ? { tokenEndpointAuthMethod: body.token_endpoint_auth_method }
          : {}),
        ...(body.scope !== undefined ? { scope: body.scope } : {}),
      }),
    );
  }

  @Post(':client_id/rotate-secret')
  @HttpCode(200)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('oauth_client.secret_rotated')
  @ApiOperation({
    summary: "Rotate an OAuth client's secret",
    description:
      'The new secret is shown once; the old one stops working at once. Needs every scope the client holds (else 403).',
  })
  @ResourceParam('client_id', CLIENT_ID_EXAMPLE, 'OAuth client')
  @Conflict(`${BOOTSTRAP_CONFLICT}, or the client is public (no secret)`)
  @ApiOkResponse({ type: RotatedOAuthClientDto })
  async rotateSecret(
    @CurrentPrincipal() principal: Principal,
    @Param('client_id') clientId: string,
  ): Promise<RotatedOAuthClientDto> {
    const { client, clientSecret } = await this.registry.rotateSecret(principal, clientId);
    return { ...toOAuthClientDto(client), client_secret: clientSecret };
  }

  @Delete(':client_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('oauth_client.deleted')
  @ApiOperation({
    summary: 'Delete an OAuth client',
    description:
      'It can no longer get tokens and is gone from every read. Tokens it already holds stay valid until they expire. Needs every scope the client holds (else 403).',
  })
  @ResourceParam('client_id', CLIENT_ID_EXAMPLE, 'OAuth client')
  @Conflict(BOOTSTRAP_CONFLICT)
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('client_id') clientId: string,
  ): Promise<void> {
    await this.registry.delete(principal, clientId);
  }
}

function toOAuthClientDto(record: OAuthClientEntity): OAuthClientDto {
  return {
    client_id: record.clientId,
    client_name: record.clientName,
    redirect_uris: record.redirectUris,
    grant_types: record.grantTypes,
    response_types: record.grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: record.tokenEndpointAuthMethod,
    scope: record.scopes.join(' '),
    client_id_issued_at: Math.floor(record.createdAt.getTime() / 1000),
    ...(record.secretHash !== null ? { client_secret_expires_at: 0 } : {}),
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

function toWithSecretDto({
  client,
  clientSecret,
}: OAuthClientWithSecret): OAuthClientWithSecretDto {
  return {
    ...toOAuthClientDto(client),
    ...(clientSecret !== null ? { client_secret: clientSecret } : {}),
  };
}
