import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ALL_SCOPES, Scope, toPublicId, type Principal } from '#common';
import { ApiKeyService } from '#api-keys';
import type { OrganizationEntity } from '#database';
import { CONCURRENT_SESSIONS } from '#sessions';
import { OrganizationsService } from '#organizations';
import { Auth, CurrentPrincipal } from '../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../http/error-envelope.dto.js';
import { decodeCursor, v2Page, V2ListQueryDto } from '../http/v2-list.js';
import {
  CreatedOrganizationDto,
  CreateOrganizationDto,
  OrganizationDto,
  OrganizationListDto,
} from './organization.dto.js';

@ApiTags('Organizations (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@Controller({ path: 'enterprise/organizations', version: '2' })
export class OrganizationsV2Controller {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly apiKeys: ApiKeyService,
  ) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @ApiOperation({
    summary: 'Create an organisation (operator only)',
    description:
      'Only the operator (bootstrap) organisation may call this. The response carries a live admin API key, shown once.',
  })
  @ApiCreatedResponse({ type: CreatedOrganizationDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateOrganizationDto,
  ): Promise<CreatedOrganizationDto> {
    await this.organizations.requireOperator(principal.organizationId, 'create organisations');
    const organization = await this.organizations.create({
      name: body.name,
      ...(body.plan ? { plan: body.plan } : {}),
      ...(body.tier ? { tier: body.tier } : {}),
      maxConcurrentSessions: body.max_concurrent_sessions ?? null,
    });
    // The new organisation's first key: every scope, live mode, created on the operator's behalf.
    const { key } = await this.apiKeys.create(
      { ...principal, organizationId: organization.id, mode: 'live', scopes: ALL_SCOPES },
      { name: 'Admin key', scopes: [...ALL_SCOPES], expiresAt: null, mode: 'live' },
    );
    return { ...toOrganizationDto(organization), admin_api_key: key };
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: 'List organisations',
    description: 'The operator organisation sees every organisation; any other sees only itself.',
  })
  @ApiOkResponse({ type: OrganizationListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V2ListQueryDto,
  ): Promise<OrganizationListDto> {
    const perPage = query.per_page;
    const own = await this.organizations.get(principal.organizationId);
    if (!own?.isBootstrap) {
      const rows = own ? [own] : [];
      return v2Page(
        'organization',
        { rows, total: rows.length, before: 0 },
        perPage,
        toOrganizationDto,
      );
    }
    const page = await this.organizations.page(decodeCursor('organization', query.cursor), perPage);
    return v2Page('organization', page, perPage, toOrganizationDto);
  }
}

function toOrganizationDto(organization: OrganizationEntity): OrganizationDto {
  return {
    id: toPublicId('organization', organization.id),
    name: organization.name,
    plan: organization.plan,
    tier: organization.tier,
    max_concurrent_sessions:
      organization.maxConcurrentSessions ?? CONCURRENT_SESSIONS[organization.plan],
    is_operator: organization.isBootstrap,
    created_at: organization.createdAt.toISOString(),
  };
}
