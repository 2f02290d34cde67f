import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, toPublicId, type Principal } from '#common';
import { ApiKeyService, DEFAULT_ROTATION_OVERLAP_SECONDS } from '#api-keys';
import type { ApiKeyEntity } from '#api-keys';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { Audited } from '../../http/audited.decorator.js';
import { V1ListQueryDto, v1Page } from '../../http/v1-list.dto.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import {
  ApiKeyDto,
  ApiKeyListDto,
  CREATE_API_KEY_EXAMPLES,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  ROTATE_API_KEY_EXAMPLES,
  RotateApiKeyDto,
  RotatedApiKeyDto,
} from './api-key-v1.dto.js';

@ApiTags('API keys (v1)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'api-keys', version: '1' })
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeyService) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite], accessTokenOnly: true })
  @Audited('api_key.created')
  @ApiOperation({
    summary: 'Create an API key',
    description:
      'Needs an OAuth access token. The key may hold only scopes the caller holds. `mode` defaults to the caller’s; only a live-mode caller may choose it (a test-mode caller creating a live key gets 403). The key is shown once.',
  })
  @ApiJsonBody(CreateApiKeyDto, CREATE_API_KEY_EXAMPLES)
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateApiKeyDto,
  ): Promise<CreatedApiKeyDto> {
    const { record, key } = await this.apiKeys.create(principal, {
      name: body.name,
      scopes: body.scopes,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
      ...(body.mode ? { mode: body.mode } : {}),
    });
    return { ...toApiKeyDto(record), key };
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: "List your organisation's API keys in the caller's mode, newest first" })
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V1ListQueryDto,
  ): Promise<ApiKeyListDto> {
    return v1Page(query, (page) => this.apiKeys.list(principal, page), toApiKeyDto);
  }

  @Get(':key_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: 'Read an API key (never the key itself)' })
  @ResourceParam('key_id', 'key_01jh2x7v4ke8rbk3a8y0v0d7qz', 'API key')
  @ApiOkResponse({ type: ApiKeyDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('key_id') id: string,
  ): Promise<ApiKeyDto> {
    return toApiKeyDto(await this.apiKeys.get(principal, id));
  }

  @Post(':key_id/revoke')
  @HttpCode(200)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @Audited('api_key.revoked')
  @ApiOperation({
    summary: 'Revoke an API key',
    description:
      'Takes effect at once on every instance. Idempotent. A key may revoke itself; revoking another key needs every scope it holds (else 403).',
  })
  @ResourceParam('key_id', 'key_01jh2x7v4ke8rbk3a8y0v0d7qz', 'API key')
  @ApiOkResponse({ type: ApiKeyDto })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('key_id') id: string,
  ): Promise<ApiKeyDto> {
    return toApiKeyDto(await this.apiKeys.revoke(principal, id));
  }

  @Post(':key_id/rotate')
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite], accessTokenOnly: true })
  @Audited('api_key.rotated')
  @ApiOperation({
    summary: 'Rotate an API key',
    description:
      'Issues a replacement (shown once) with the same name, scopes and expiry; the old key keeps working for `overlap_seconds`. Needs every scope the key holds (else 403).',
  })
  @ResourceParam('key_id', 'key_01jh2x7v4ke8rbk3a8y0v0d7qz', 'API key')
  @ApiJsonBody(RotateApiKeyDto, ROTATE_API_KEY_EXAMPLES)
  @ApiCreatedResponse({ type: RotatedApiKeyDto })
  async rotate(
    @CurrentPrincipal() principal: Principal,
    @Param('key_id') id: string,
    @Body() body: RotateApiKeyDto,
  ): Promise<RotatedApiKeyDto> {
    const { record, key, previous } = await this.apiKeys.rotate(
      principal,
      id,
      body.overlap_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS,
    );
    return { ...toApiKeyDto(record), key, previous: toApiKeyDto(previous) };
  }
}

function toApiKeyDto(record: ApiKeyEntity): ApiKeyDto {
  return {
    id: toPublicId('apiKey', record.id),
    name: record.name,
    prefix: record.displayPrefix,
    mode: record.mode,
    scopes: record.scopes,
    created_at: record.createdAt.toISOString(),
    expires_at: record.expiresAt?.toISOString() ?? null,
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
    revoked_at: record.revokedAt?.toISOString() ?? null,
  };
}
