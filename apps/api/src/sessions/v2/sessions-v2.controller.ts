import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import type { Member } from '#auth';
import { AnalystSessions, SessionMerger, SessionsService, SessionListsService } from '#sessions';
import type { SessionEntity } from '#sessions';
import { AssignmentDto } from '../../assignments/v2/assignment-v2.dto.js';
import { toAssignmentDto } from '../../assignments/v2/assignment-v2.mapper.js';
import { ApiSubmitResults } from '../../assignments/submission-body.decorator.js';
import { readSubmission } from '../../assignments/submission-body.js';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, OptionalMember, RequestId } from '../../http/auth.decorator.js';
import type { ApiRequest } from '../../http/request-context.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody, ApiJsonBodyRefusals } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import {
  CREATE_COLLABORATIVE_SESSION_EXAMPLES,
  CreateCollaborativeSessionV2Dto,
} from './collaborative-session-v2.dto.js';
import { CREATE_SESSION_V2_EXAMPLES, CreateSessionV2Dto } from './create-session-v2.dto.js';
import { MERGE_SESSIONS_EXAMPLES, MergeSessionsV2Dto } from './merge-sessions-v2.dto.js';
import {
  scoreComparisons,
  SessionListQueryV2Dto,
  SessionListV2Dto,
  SessionV2Dto,
} from './session-v2.dto.js';
import { toSessionRequestV2, toSessionV2 } from './session-v2.mapper.js';
import { ApiConcurrentSessionsLimit } from '../concurrency-limit.decorator.js';
import { LinkBase } from '../../http/sandbox.js';

@ApiTags('Sessions (v2)')
@ApiResponse({
  status: 400,
  description: 'VALIDATION_ERROR with suggested_value and help_url',
  type: ErrorEnvelopeDto,
})
@ApiController({ path: 'sessions', version: '2' })
export class SessionsV2Controller {
  constructor(
    private readonly sessions: SessionsService,
    private readonly merger: SessionMerger,
    private readonly lists: SessionListsService,
    private readonly analystSessions: AnalystSessions,
  ) {}

  @Post('create')
  @ApiConcurrentSessionsLimit()
  @HttpCode(201)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({ summary: 'Create a session (version 2)' })
  @ApiJsonBody(CreateSessionV2Dto, CREATE_SESSION_V2_EXAMPLES)
  @ApiCreatedResponse({ type: SessionV2Dto })
  @ApiJsonBodyRefusals()
  async create(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: CreateSessionV2Dto,
    @LinkBase() linkBase: string,
  ): Promise<SessionV2Dto> {
    const session = await this.sessions.createRequested(
      principal,
      toSessionRequestV2(body),
      requestId,
    );
    return this.view(session, linkBase);
  }

  @Post('collaborative')
  @ApiConcurrentSessionsLimit()
  @HttpCode(201)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({
    summary: 'Create a collaborative session: one target, several analysts',
    description:
      '`analyst_count` analysts (2–20, default 3) work on the one target independently; the result combines their contributions: weighted geometric median of their coordinates, descriptors kept with the share of analysts reporting them, `confidence_score` from their agreement, `statistical_validation` over all their judged trials, and one `collaborative_insights` entry per analyst with its contribution weight. With the simulated engine they are simulated analysts. Otherwise the body and answer are those of POST /v2/sessions/create.',
  })
  @ApiJsonBody(CreateCollaborativeSessionV2Dto, CREATE_COLLABORATIVE_SESSION_EXAMPLES)
  @ApiCreatedResponse({ type: SessionV2Dto })
  async createCollaborative(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: CreateCollaborativeSessionV2Dto,
    @LinkBase() linkBase: string,
  ): Promise<SessionV2Dto> {
    const session = await this.sessions.createRequested(
      principal,
      { ...toSessionRequestV2(body), analystCount: body.analyst_count ?? 3 },
      requestId,
    );
    return this.view(session, linkBase);
  }

  @Get()
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: "List your organisation's sessions in the caller's mode, newest first",
    description:
      'Filters combine: `status`, `type`, `confidence_score` with a comparison in brackets (`confidence_score[gt]=0.8`, also `gte`, `lt`, `lte`; plain `confidence_score=` is equality; combine two for a range), `created_after` (a date or date-time), `analyst_id`. Any other bracket, such as `confidence_score[above]`, is refused naming it. Pages with `per_page` and the opaque `cursor` of the previous page.',
  })
  @ApiOkResponse({ type: SessionListV2Dto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SessionListQueryV2Dto,
    @LinkBase() linkBase: string,
  ): Promise<SessionListV2Dto> {
    const perPage = query.per_page;
    const page = await this.lists.page(
      principal,
      {
        status: query.status,
        type: query.type,
        confidenceScore: scoreComparisons(query),
        createdAfter: query.created_after === undefined ? undefined : new Date(query.created_after),
        analystId: query.analyst_id,
      },
      pageRequest('session', query),
    );
    return v2Page('session', page, perPage, (session) => this.view(session, linkBase));
  }

  @Post(':session_id/results')
  @ApiSubmitResults({
    noun: 'session',
    param: 'session_id',
    example: 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz',
    scope: Scope.SessionsWrite,
    summary: "Submit an analyst's data for a session",
    about: 'For sessions of the `analyst` engine (docs/analysts.md).',
  })
  async submitResults(
    @OptionalMember() member: Member | undefined,
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('session_id') id: string,
    @Req() request: ApiRequest,
    @LinkBase() linkBase: string,
  ): Promise<AssignmentDto> {
    const submission = await readSubmission(request);
    const assignment = await this.analystSessions.submit(
      member,
      principal,
      id,
      submission,
      requestId,
    );
    return toAssignmentDto(assignment, linkBase);
  }

  @Post(':session_id/merge')
  @HttpCode(201)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({
    summary: 'Merge completed sessions on the same target into one result',
    description: [
      'Creates a new, already completed session combining the one in the path with `session_ids` (up to 20 in all); the sources stay as they are. Rules:',
      '- every source is yours, `completed`, not itself a merge (merge its sources instead), and has the same `type` and exactly the same `target`; otherwise 409 naming `session_ids` and the session at fault;',
      "- the result pools every source's contributions against the target: statistics over all their judged trials, coordinates and descriptors over all analysts; an analyst in several sources counts once, over all their trials;",
      '- it takes the strictest `privacy_level` of its sources (classified, then private, then public), their modality if they share one, the longest duration, and the sum of their `analyst_count`; `merged_from` lists the sources;',
      '- `session.created` and `session.completed` announce it.',
    ].join('\n'),
  })
  @ResourceParam('session_id', 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', 'session')
  @ApiJsonBody(MergeSessionsV2Dto, MERGE_SESSIONS_EXAMPLES)
  @ApiCreatedResponse({ type: SessionV2Dto })
  @ApiResponse({
    status: 409,
    description: 'A session cannot be merged with the others',
    type: ErrorEnvelopeDto,
  })
  async merge(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('session_id') id: string,
    @Body() body: MergeSessionsV2Dto,
    @LinkBase() linkBase: string,
  ): Promise<SessionV2Dto> {
    return this.view(await this.merger.merge(principal, id, body.session_ids, requestId), linkBase);
  }

  @Get(':session_id')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({ summary: 'Read a session with its later-generation results' })
  @ResourceParam('session_id', 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', 'session')
  @ApiOkResponse({ type: SessionV2Dto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('session_id') id: string,
    @LinkBase() linkBase: string,
  ): Promise<SessionV2Dto> {
    return this.view(await this.sessions.get(principal, id), linkBase);
  }

  private view(session: SessionEntity, linkBase: string): SessionV2Dto {
    return toSessionV2(session, (index) => this.sessions.sketchUrl(session, index, linkBase));
  }
}
