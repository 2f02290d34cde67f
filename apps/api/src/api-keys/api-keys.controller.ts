import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Scope, toPublicId, type Principal } from '#common';
import { ApiKeyService } from '#api-keys';
import type { ApiKeyEntity } from '#database';
import { Auth, CurrentPrincipal } from '../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../http/error-envelope.dto.js';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './api-key.dto.js';

@ApiTags('API keys (v1)')
@Controller({ path: 'api-keys', version: '1' })
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeyService) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite], accessTokenOnly: true })
  @ApiOperation({
    summary: 'Create an API key',
    description: 'Needs an OAuth access token. The key is shown once.',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
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
