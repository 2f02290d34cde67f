import { Body, Get, HttpCode, Param, Post, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AssignmentsService, SubmittedSketches } from '#analysts';
import { requireMember, type Member } from '#auth';
import { Scope, type Principal } from '#common';
import { ApiController } from '../../http/api-controller.decorator.js';
import {
  Auth,
  CurrentMember,
  CurrentPrincipal,
  OptionalMember,
  RequestId,
} from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { servedFile, servedFileResponse } from '../../http/served-files.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import {
  ASSIGNMENT_ID_EXAMPLE,
  AssignmentDto,
  AssignmentListDto,
  AssignmentListQueryDto,
  DECLINE_EXAMPLES,
  DeclineAssignmentDto,
} from './assignment-v2.dto.js';
import { toAssignmentDto } from './assignment-v2.mapper.js';
import { LinkBase } from '../../http/sandbox.js';

const OWN =
  "Called by the analyst with their own access token (authorization code flow); API keys and client tokens get 403, another analyst's assignment is 404.";

/**
 * An analyst's assignments (docs/analysts.md, "Blind tasking"): blind — a
 * reference number, the kind, modality, duration, deadline and question
 * type, never the target — until the work is done.
 */
@ApiTags('Assignments (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'assignments', version: '2' })
export class AssignmentsV2Controller {
  constructor(
    private readonly assignments: AssignmentsService,
    private readonly sketches: SubmittedSketches,
  ) {}

  @Get()
  @Auth({ scopes: [Scope.SessionsRead], members: true })
  @ApiOperation({
    summary: 'My assignments, newest first',
    description: `Filters: \`status\`, \`kind\`. ${OWN}`,
  })
  @ApiOkResponse({ type: AssignmentListDto })
  async list(
    @CurrentMember() member: Member,
    @CurrentPrincipal() principal: Principal,
    @Query() query: AssignmentListQueryDto,
    @LinkBase() linkBase: string,
  ): Promise<AssignmentListDto> {
    const page = await this.assignments.assignmentsOf(
      member,
      principal.mode,
      { status: query.status, kind: query.kind },
      pageRequest('assignment', query),
    );
    return v2Page('assignment', page, query.per_page, (assignment) =>
      toAssignmentDto(assignment, linkBase),
    );
  }

  @Get(':assignment_id')
  @Auth({ scopes: [Scope.SessionsRead], members: true })
  @ApiOperation({
    summary: 'One of my assignments',
    description: `With my submission, and once the work is closed the target and the nonce that opens \`target_commitment\`. ${OWN}`,
  })
  @ResourceParam('assignment_id', ASSIGNMENT_ID_EXAMPLE, 'assignment')
  @ApiOkResponse({ type: AssignmentDto })
  async get(
    @CurrentMember() member: Member,
    @CurrentPrincipal() principal: Principal,
    @Param('assignment_id') id: string,
    @LinkBase() linkBase: string,
  ): Promise<AssignmentDto> {
    return toAssignmentDto(
      await this.assignments.assignmentOf(member, principal.mode, id),
      linkBase,
    );
  }

  @Post(':assignment_id/decline')
  @HttpCode(200)
  @Auth({ scopes: [Scope.SessionsWrite], members: true })
  @ApiOperation({
    summary: 'Decline an assignment',
    description: `Before submitting: the assignment becomes \`declined\` and another analyst — the least loaded one not already on the work — takes your place with the same deadline, when anyone is free (else the work goes on with fewer analysts). 409 once you have submitted or the work is closed. ${OWN}`,
  })
  @ResourceParam('assignment_id', ASSIGNMENT_ID_EXAMPLE, 'assignment')
  @ApiJsonBody(DeclineAssignmentDto, DECLINE_EXAMPLES)
  @ApiOkResponse({ type: AssignmentDto })
  @ApiResponse({ status: 409, description: 'Already submitted, or closed', type: ErrorEnvelopeDto })
  async decline(
    // Asked for after the body is checked: a malformed request is a 400 whoever sends it.
    @OptionalMember() member: Member | undefined,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('assignment_id') id: string,
    @Body() body: DeclineAssignmentDto,
    @LinkBase() linkBase: string,
  ): Promise<AssignmentDto> {
    return toAssignmentDto(
      await this.assignments.decline(
        requireMember(member),
        principal.mode,
        id,
        body.reason ?? null,
        requestId,
      ),
      linkBase,
    );
  }

  @Get(':assignment_id/sketches/:sketch_id')
  @Auth({ scopes: [Scope.SessionsRead], members: true })
  @ApiOperation({
    summary: 'A sketch of my submission',
    description: `As stored: PNG, JPEG, or SVG sanitised on upload; served inert (\`Content-Security-Policy: default-src 'none'; sandbox\`). ${OWN}`,
  })
  @ResourceParam('assignment_id', ASSIGNMENT_ID_EXAMPLE, 'assignment')
  @ApiParam({ name: 'sketch_id', example: 'skt_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  @ApiOkResponse(servedFileResponse('The sketch'))
  async sketch(
    @CurrentMember() member: Member,
    @CurrentPrincipal() principal: Principal,
    @Param('assignment_id') id: string,
    @Param('sketch_id') sketchId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    return servedFile(await this.sketches.own(member, principal.mode, id, sketchId), response);
  }
}
