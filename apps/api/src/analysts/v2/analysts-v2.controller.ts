import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { MembersService } from '#analysts';
import { Scope, type Principal } from '#common';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Audited } from '../../http/audited.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import {
  ANALYST_ID,
  AnalystListQueryDto,
  CREATE_ANALYST_EXAMPLES,
  CreateAnalystDto,
  UPDATE_ANALYST_EXAMPLES,
  UpdateAnalystDto,
} from './analyst-v2.dto.js';
import {
  AnalystCreatedDto,
  AnalystDetailDto,
  AnalystDto,
  AnalystListDto,
} from './analyst-response-v2.dto.js';
import { toAnalystCreatedDto, toAnalystDto } from './analyst-v2.mapper.js';
import { AnalystTrackRecords } from './analyst-track-records-v2.js';

const LIVE_ONLY =
  'People belong to the organisation in both modes: test-mode credentials read them, but only live-mode ones change them (403 otherwise), so a sandbox key never makes someone who signs in to live data.';

/**
 * The people of the caller's organisation (issue 18): members with roles,
 * each an `analyst_…` whatever their roles. Managed by the organisation's
 * admins — its API keys and client tokens with `organizations:write` (reading
 * with `organizations:read`), or people with the `admin` role; a member of
 * another organisation is 404.
 */
@ApiTags('Analysts (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'analysts', version: '2' })
export class AnalystsV2Controller {
  constructor(
    private readonly members: MembersService,
    private readonly trackRecords: AnalystTrackRecords,
  ) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('person.created', 'person.invited')
  @ApiOperation({
    summary: 'Add a member: an analyst, a judge or an admin',
    description: `With \`password\`, a local account that can sign in at once (\`status: active\`). Without, the person is invited (\`status: invited\`): the answer carries a one-time \`invitation_url\` for them to set a password, valid 7 days; an SSO sign-in of the same email through the organisation's connection lands on the same account. \`roles\` defaults to \`["analyst"]\`. An email already in this organisation is 409 naming \`email\` and the member to PATCH instead; an email of another organisation's account is 409 too (an email is one account across the service). ${LIVE_ONLY}`,
  })
  @ApiJsonBody(CreateAnalystDto, CREATE_ANALYST_EXAMPLES)
  @ApiCreatedResponse({ type: AnalystCreatedDto })
  @ApiResponse({
    status: 409,
    description: 'CONFLICT: the email has an account',
    type: ErrorEnvelopeDto,
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: CreateAnalystDto,
  ): Promise<AnalystCreatedDto> {
    return toAnalystCreatedDto(await this.members.create(principal, body, requestId));
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: "The organisation's members, newest first",
    description:
      'Filter by `role` and by `status`; every member, disabled ones too, unless filtered.',
  })
  @ApiOkResponse({ type: AnalystListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AnalystListQueryDto,
  ): Promise<AnalystListDto> {
    const page = await this.members.page(
      principal.organizationId,
      { role: query.role, status: query.status },
      pageRequest('analyst', query),
    );
    return v2Page('analyst', page, query.per_page, toAnalystDto);
  }

  @Get(':analyst_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: 'Read a member, with their track record',
    description:
      '`track_record`: their judged trials, hits and hit rate (Wilson interval, exact p-value against chance), mean SAIC scores, and whether the record is rested on yet (`evidence`).',
  })
  @ResourceParam('analyst_id', ANALYST_ID.example, 'analyst')
  @ApiOkResponse({ type: AnalystDetailDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('analyst_id') id: string,
  ): Promise<AnalystDetailDto> {
    const analyst = await this.members.get(principal.organizationId, id);
    return {
      ...toAnalystDto(analyst),
      track_record: await this.trackRecords.of(analyst),
    };
  }

  @Patch(':analyst_id')
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('person.updated', 'person.disabled', 'person.enabled')
  @ApiOperation({
    summary: "Change a member's name, roles, or whether they are disabled",
    description: `Absent fields stay. Losing the \`analyst\` role, or being disabled, gives their open assignments back (other analysts are picked); gaining \`judge\` takes judging tasks that were waiting for a judge. The last active admin can be neither demoted nor disabled: 409 naming \`roles\` (or \`disabled\`). ${LIVE_ONLY}`,
  })
  @ResourceParam('analyst_id', ANALYST_ID.example, 'analyst')
  @ApiJsonBody(UpdateAnalystDto, UPDATE_ANALYST_EXAMPLES)
  @ApiOkResponse({ type: AnalystDto })
  @ApiResponse({
    status: 409,
    description: 'CONFLICT: the last active admin',
    type: ErrorEnvelopeDto,
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('analyst_id') id: string,
    @Body() body: UpdateAnalystDto,
  ): Promise<AnalystDto> {
    return toAnalystDto(await this.members.update(principal, id, body, requestId));
  }

  @Delete(':analyst_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('person.removed')
  @ApiOperation({
    summary: 'Remove a member',
    description: `The account is disabled, not erased: they can no longer sign in, their tokens stop working at once, their invitation is cleared and their open assignments go to others, while their assignments, submissions and judged trials stay in the history (and \`GET\` still shows them, \`status: disabled\`). Removing the last active admin is 409 naming \`roles\`. ${LIVE_ONLY}`,
  })
  @ResourceParam('analyst_id', ANALYST_ID.example, 'analyst')
  @ApiNoContentResponse({ description: 'Removed (disabled)' })
  @ApiResponse({
    status: 409,
    description: 'CONFLICT: the last active admin',
    type: ErrorEnvelopeDto,
  })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('analyst_id') id: string,
  ): Promise<void> {
    await this.members.disable(principal, id, requestId);
  }

  @Post(':analyst_id/invitation')
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('person.invited')
  @ApiOperation({
    summary: 'Invite a member again',
    description: `A new one-time \`invitation_url\` (7 days) for someone still \`invited\` — the first link expired or was lost; the old link stops working. Someone \`active\` or \`disabled\` is 409 naming \`status\`. ${LIVE_ONLY}`,
  })
  @ResourceParam('analyst_id', ANALYST_ID.example, 'analyst')
  @ApiCreatedResponse({ type: AnalystCreatedDto })
  @ApiResponse({ status: 409, description: 'CONFLICT: not invited', type: ErrorEnvelopeDto })
  async reinvite(
    @CurrentPrincipal() principal: Principal,
    @Param('analyst_id') id: string,
  ): Promise<AnalystCreatedDto> {
    return toAnalystCreatedDto(await this.members.reinvite(principal, id));
  }
}
