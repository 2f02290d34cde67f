import {
  Body,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  Res,
  StreamableFile,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { judgeCaller, JudgingTasks, JudgingService } from '#analysts';
import { requireMember, type Member } from '#auth';
import { AppError, Scope, type Principal } from '#common';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, OptionalMember, RequestId } from '../../http/auth.decorator.js';
import { servedFile, servedFileResponse } from '../../http/served-files.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import {
  CANDIDATE_ID,
  JUDGING_TASK_ID,
  JudgingTaskDto,
  JudgingTaskListDto,
  JudgingTaskListQueryDto,
  RANKING_EXAMPLES,
  RankingDto,
  SKETCH_ID,
} from './judging-task-v2.dto.js';
import { toJudgingTaskDto } from './judging-task-v2.mapper.js';
import { LinkBase } from '../../http/sandbox.js';

const BLIND =
  'Blind: the task names no analyst, piece of work, target or pool target; candidates come in a random order with ids made for this task, and their photos and the sketches are served through this task’s own URLs.';

/**
 * Judges' judging tasks (docs/analysts.md, "Blind judging and track
 * records"): a judge reads only the tasks given to them (another's is 404)
 * and ranks them; an admin person may read every task but ranks only their
 * own. Called with the person's own token (authorization code flow).
 */
@ApiTags('Judging (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'judging-tasks', version: '2' })
export class JudgingTasksController {
  constructor(
    private readonly tasks: JudgingTasks,
    private readonly judging: JudgingService,
  ) {}

  @Get()
  @Auth({ scopes: [Scope.SessionsRead], members: true })
  @ApiOperation({
    summary: 'Your judging tasks, newest first',
    description: `The tasks given to you to rank; \`status\` filters (\`pending\`: yours to rank). Pages with \`per_page\` and the opaque \`cursor\` of the previous page. ${BLIND}`,
  })
  @ApiOkResponse({ type: JudgingTaskListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @OptionalMember() member: Member | undefined,
    @Query() query: JudgingTaskListQueryDto,
    @LinkBase() linkBase: string,
  ): Promise<JudgingTaskListDto> {
    const caller = judgeCaller(principal, requireMember(member));
    const page = await this.tasks.page(caller, query.status, pageRequest('judgingTask', query));
    const views = await Promise.all(
      page.rows.slice(0, query.per_page).map((t) => this.tasks.viewOf(t)),
    );
    const byId = new Map(views.map((view) => [view.task.id, view]));
    return v2Page('judgingTask', page, query.per_page, (task) =>
      toJudgingTaskDto(byId.get(task.id)!, linkBase),
    );
  }

  @Get(':judging_task_id')
  @Auth({ scopes: [Scope.SessionsRead], members: true })
  @ApiOperation({
    summary: 'Read a judging task: the submissions and the candidates to rank against them',
    description: `\`submissions\`: what each analyst gave (descriptors, coordinates, notes, sketches), labelled A, B, …. \`candidates\`: the true target and the decoys drawn from the target pool. Each kind of material (photos, coordinates, descriptors) is shown for every candidate or for none, so its absence marks none of them. ${BLIND}`,
  })
  @ResourceParam('judging_task_id', JUDGING_TASK_ID.example, 'judging task')
  @ApiOkResponse({ type: JudgingTaskDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @OptionalMember() member: Member | undefined,
    @Param('judging_task_id') id: string,
    @LinkBase() linkBase: string,
  ): Promise<JudgingTaskDto> {
    const view = await this.tasks.view(judgeCaller(principal, requireMember(member)), id);
    return toJudgingTaskDto(view, linkBase);
  }

  @Post(':judging_task_id/ranking')
  @HttpCode(200)
  @Auth({ scopes: [Scope.SessionsWrite], members: true })
  @ApiOperation({
    summary: 'Rank the candidates, best match first',
    description:
      'Every `candidate_id` of the task once, the one the submissions describe best first. Rank 1 on the true target is a hit; each analyst who submitted gets one judged trial (their track record), with SAIC accuracy and reliability when the true target has descriptors from the vocabulary. Only the task’s judge ranks it (an admin reading another’s task gets 403), once: a task already ranked is 409 naming `ranking`. Announces `judging_task.ranked`. Answers the task with its `ranking`.',
  })
  @ResourceParam('judging_task_id', JUDGING_TASK_ID.example, 'judging task')
  @ApiJsonBody(RankingDto, RANKING_EXAMPLES)
  @ApiOkResponse({ type: JudgingTaskDto })
  @ApiResponse({
    status: 409,
    description: 'The task is already ranked or cancelled',
    type: ErrorEnvelopeDto,
  })
  async rank(
    @CurrentPrincipal() principal: Principal,
    @OptionalMember() member: Member | undefined,
    @RequestId() requestId: string,
    @Param('judging_task_id') id: string,
    @Body() body: RankingDto,
    @LinkBase() linkBase: string,
  ): Promise<JudgingTaskDto> {
    const caller = judgeCaller(principal, requireMember(member));
    const ranked = await this.judging.rank(caller, id, body.ranking, requestId);
    return toJudgingTaskDto(await this.tasks.viewOf(ranked), linkBase);
  }

  @Get(':judging_task_id/candidates/:candidate_id/photos/:position')
  @Auth({ scopes: [Scope.SessionsRead], members: true })
  @ApiOperation({
    summary: 'A photo of a candidate, by its position (1 = first)',
    description:
      'The bytes, typed by what they are (sniffed), with `X-Content-Type-Options: nosniff` and a sandboxing `Content-Security-Policy`. Only the photos the task shows.',
  })
  @ResourceParam('judging_task_id', JUDGING_TASK_ID.example, 'judging task')
  @ApiParam({ name: 'candidate_id', example: CANDIDATE_ID.example })
  @ApiParam({ name: 'position', example: 1, schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse(servedFileResponse('The photo'))
  async photo(
    @CurrentPrincipal() principal: Principal,
    @OptionalMember() member: Member | undefined,
    @Param('judging_task_id') id: string,
    @Param('candidate_id') candidateId: string,
    @Param(
      'position',
      new ParseIntPipe({
        exceptionFactory: () => AppError.invalid('position', 'must be a whole number from 1'),
      }),
    )
    position: number,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const caller = judgeCaller(principal, requireMember(member));
    return servedFile(await this.tasks.candidatePhoto(caller, id, candidateId, position), response);
  }

  @Get(':judging_task_id/sketches/:sketch_id')
  @Auth({ scopes: [Scope.SessionsRead], members: true })
  @ApiOperation({
    summary: 'A sketch of one of the submissions',
    description:
      "The bytes, typed by what they are (PNG, JPEG, or SVG as sanitised at upload), with `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none'; sandbox`, so an SVG can run nothing.",
  })
  @ResourceParam('judging_task_id', JUDGING_TASK_ID.example, 'judging task')
  @ApiParam({ name: 'sketch_id', example: SKETCH_ID.example })
  @ApiOkResponse(servedFileResponse('The sketch'))
  async sketch(
    @CurrentPrincipal() principal: Principal,
    @OptionalMember() member: Member | undefined,
    @Param('judging_task_id') id: string,
    @Param('sketch_id') sketchId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const caller = judgeCaller(principal, requireMember(member));
    return servedFile(await this.tasks.sketch(caller, id, sketchId), response);
  }
}
