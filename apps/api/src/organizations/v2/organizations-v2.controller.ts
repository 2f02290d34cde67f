import { Body, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, toPublicId, type Principal } from '#common';
import type { OrganizationEntity } from '#organizations';
import { limitsOf, OrganizationsService, type OrganizationChanges } from '#organizations';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Audited } from '../../http/audited.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { decodeCursor, v2Page, V2ListQueryDto } from '../../http/v2-list.js';
import {
  CREATE_ORGANIZATION_EXAMPLES,
  CreatedOrganizationDto,
  CreateOrganizationDto,
  OrganizationDto,
  OrganizationListDto,
  UPDATE_ORGANIZATION_EXAMPLES,
  UpdateOrganizationDto,
} from './organization-v2.dto.js';

@ApiTags('Organizations (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'enterprise/organizations', version: '2' })
export class OrganizationsV2Controller {
  constructor(private readonly organizations: OrganizationsService) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('organization.created', 'api_key.created')
  @ApiOperation({
    summary: 'Create an organisation (operator only)',
    description:
      'Only the operator (bootstrap) organisation may call this, with a live-mode credential. The response carries a live admin API key, shown once.',
  })
  @ApiJsonBody(CreateOrganizationDto, CREATE_ORGANIZATION_EXAMPLES)
  @ApiCreatedResponse({ type: CreatedOrganizationDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateOrganizationDto,
  ): Promise<CreatedOrganizationDto> {
    const { organization, adminApiKey } = await this.organizations.createWithAdminKey(principal, {
      name: body.name,
      ...(body.plan ? { plan: body.plan } : {}),
      ...(body.tier ? { tier: body.tier } : {}),
      ...agreedNumbers(body),
    });
    return { ...toOrganizationDto(organization), admin_api_key: adminApiKey };
  }

  @Patch(':organization_id')
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true, anyOrganization: true })
  @Audited('organization.updated')
  @ApiOperation({
    summary: "Change an organisation's name, plan, tier or agreed limits (operator only)",
    description:
      'Any of the creation fields. Agreed numbers go with agreements: `requests_per_minute` and `max_concurrent_sessions` need the enterprise plan, `requests_per_hour` and `requests_per_day` the enterprise or custom tier; null clears one (back to the plan’s or tier’s). A plan or tier change announces `account.subscription_updated`. New limits apply on every API instance within 5 seconds.',
  })
  @ResourceParam('organization_id', 'org_01jh2x7v4ke8rbk3a8y0v0d7qz', 'organization')
  @ApiJsonBody(UpdateOrganizationDto, UPDATE_ORGANIZATION_EXAMPLES)
  @ApiOkResponse({ type: OrganizationDto })
  async update(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('organization_id') id: string,
    @Body() body: UpdateOrganizationDto,
  ): Promise<OrganizationDto> {
    const organization = await this.organizations.update(
      principal,
      id,
      {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.plan !== undefined ? { plan: body.plan } : {}),
        ...(body.tier !== undefined ? { tier: body.tier } : {}),
        ...agreedNumbers(body),
      },
      requestId,
    );
    return toOrganizationDto(organization);
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: 'List organisations',
    description:
      'The operator organisation sees every organisation with a live-mode credential; any other caller (and the operator in test mode) sees only its own.',
  })
  @ApiOkResponse({ type: OrganizationListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V2ListQueryDto,
  ): Promise<OrganizationListDto> {
    const page = await this.organizations.pageFor(
      principal,
      () => decodeCursor('organization', query.cursor),
      query.per_page,
    );
    return v2Page('organization', page, query.per_page, toOrganizationDto);
  }
}

/** The agreed numbers a create or update body gives (null clears one), as the service names them. */
function agreedNumbers(body: UpdateOrganizationDto): OrganizationChanges {
  const changes: OrganizationChanges = {};
  if (body.max_concurrent_sessions !== undefined) {
    changes.maxConcurrentSessions = body.max_concurrent_sessions;
  }
  if (body.requests_per_minute !== undefined) changes.requestsPerMinute = body.requests_per_minute;
  if (body.requests_per_hour !== undefined) changes.requestsPerHour = body.requests_per_hour;
  if (body.requests_per_day !== undefined) changes.requestsPerDay = body.requests_per_day;
  return changes;
}

function toOrganizationDto(organization: OrganizationEntity): OrganizationDto {
  const limits = limitsOf(organization);
  return {
    id: toPublicId('organization', organization.id),
    name: organization.name,
    plan: organization.plan,
    tier: organization.tier,
    max_concurrent_sessions: limits.concurrentSessions,
    requests_per_minute: limits.requestsPerMinute,
    requests_per_hour: limits.requestsPerHour,
    requests_per_day: limits.requestsPerDay,
    is_operator: organization.isBootstrap,
    created_at: organization.createdAt.toISOString(),
  };
}
