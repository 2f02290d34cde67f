import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, toPublicId, type Principal } from '#common';
import { MAX_LIVE_SCIM_TOKENS, ScimTokensService, type ScimToken } from '#scim';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Audited } from '../../http/audited.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page, V2ListQueryDto } from '../../http/v2-list.js';
import {
  CREATE_SCIM_TOKEN_EXAMPLES,
  CreatedScimTokenDto,
  CreateScimTokenDto,
  SCIM_TOKEN_ID_EXAMPLE,
  ScimTokenListDto,
  type ScimTokenDto,
} from './scim-token-v2.dto.js';

const ORGANIZATION_EXAMPLE = 'org_01jh2x7v4ke8rbk3a8y0v0d7qz';

/**
 * The bearer tokens an organisation's identity providers call `/scim/v2`
 * with, managed by the organisation itself (`organizations:write`; listing
 * with `organizations:read`). Another organisation's id in the path is 404,
 * as every tenant's resource is.
 */
@ApiTags('Enterprise SCIM (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'enterprise/organizations/:organization_id/scim-tokens', version: '2' })
export class ScimTokensV2Controller {
  constructor(private readonly tokens: ScimTokensService) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('scim_token.created')
  @ApiOperation({
    summary: 'Issue a SCIM token for an identity provider',
    description: `Answers the bearer token an identity provider's SCIM client (Okta, Microsoft Entra ID) calls \`/scim/v2\` with, to provision the organisation's people and groups. The token is shown in this response only: only its SHA-256 is kept, and no later call returns it; store it now, or revoke it and issue another. \`name\` (default \`SCIM\`) tells tokens apart. An organisation holds at most ${MAX_LIVE_SCIM_TOKENS} unrevoked tokens (409 past that: revoke one first). Records a \`scim_token.created\` audit event (never the token).`,
  })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ApiJsonBody(CreateScimTokenDto, CREATE_SCIM_TOKEN_EXAMPLES)
  @ApiCreatedResponse({ type: CreatedScimTokenDto })
  @ApiResponse({
    status: 409,
    description: `The organisation already has ${MAX_LIVE_SCIM_TOKENS} unrevoked SCIM tokens`,
    type: ErrorEnvelopeDto,
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateScimTokenDto,
  ): Promise<CreatedScimTokenDto> {
    const issued = await this.tokens.create(principal, body.name);
    return {
      id: issued.id,
      name: issued.name,
      token: issued.token,
      created_at: issued.createdAt.toISOString(),
    };
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: "The organisation's SCIM tokens (the same in both modes), newest first",
    description:
      'Revoked tokens stay listed, with `revoked_at`. The tokens themselves are never shown again.',
  })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ApiOkResponse({ type: ScimTokenListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V2ListQueryDto,
  ): Promise<ScimTokenListDto> {
    const page = await this.tokens.list(principal.organizationId, pageRequest('scimToken', query));
    return v2Page('scimToken', page, query.per_page, toScimTokenDto);
  }

  @Delete(':scim_token_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('scim_token.revoked')
  @ApiOperation({
    summary: 'Revoke a SCIM token: it stops working at once',
    description:
      'The next SCIM call presenting it is refused. The token stays listed with `revoked_at`. Revoking a revoked token is a 204 too and changes nothing (idempotent; the attempt is recorded); another organisation’s token, or one that never existed, is a 404. Records a `scim_token.revoked` audit event.',
  })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ResourceParam('scim_token_id', SCIM_TOKEN_ID_EXAMPLE, 'SCIM token')
  @ApiNoContentResponse({ description: 'Revoked' })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('scim_token_id') id: string,
  ): Promise<void> {
    await this.tokens.revoke(principal, id);
  }
}

function toScimTokenDto(token: ScimToken): ScimTokenDto {
  return {
    id: toPublicId('scimToken', token.id),
    name: token.name,
    created_at: token.createdAt.toISOString(),
    last_used_at: token.lastUsedAt?.toISOString() ?? null,
    revoked_at: token.revokedAt?.toISOString() ?? null,
  };
}
