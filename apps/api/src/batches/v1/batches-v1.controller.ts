import { Body, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { AnalysesService } from '#analyses';
import { DowsingService } from '#dowsing';
import { dowsingBatchItem } from '../../dowsing/dowsing-mapping.js';
import { toQueryV1 } from '../../dowsing/v1/dowsing-v1.mapper.js';
import { SessionsService } from '#sessions';
import { BatchRecords } from '#work';
import { ApiQueuesAnalyses } from '../../analyses/queues-analyses.decorator.js';
import {
  toAnalysisBatchCreated,
  toBatchItem,
  toNewAnalyses,
  toResults,
} from '../../analyses/v1/analysis-v1.mapper.js';
import {
  MAX_ANALYSIS_BATCH_SIZE,
  SUBMIT_ANALYSIS_BATCH_EXAMPLES,
  SubmitAnalysisBatchDto,
} from '../../analyses/v1/submit-analysis-v1.dto.js';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody, ApiJsonBodyRefusals } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { toCreatedV1, toNewSession, toResultsV1 } from '../../sessions/v1/session-v1.mapper.js';
import {
  AnalysisBatchCreatedV1Dto,
  BatchCreatedV1Dto,
  BatchResultsV1Dto,
  BatchStatusV1Dto,
  CREATE_SESSION_BATCH_EXAMPLES,
  CreateSessionBatchV1Dto,
  MAX_BATCH_SIZE,
} from './batch-v1.dto.js';
import { toBatchStatusV1 } from './batch-v1.mapper.js';
import { ApiConcurrentSessionsLimit } from '../../sessions/concurrency-limit.decorator.js';
import { LinkBase } from '../../http/sandbox.js';

const BATCH_ID_EXAMPLE = 'batch_01jh2x7v4ke8rbk3a8y0v0d7qz';

@ApiTags('Batches (v1)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'batch', version: '1' })
export class BatchesV1Controller {
  constructor(
    private readonly sessions: SessionsService,
    private readonly batches: BatchRecords,
    private readonly analyses: AnalysesService,
    private readonly dowsing: DowsingService,
  ) {}

  @Post('analysis')
  @ApiQueuesAnalyses(
    SubmitAnalysisBatchDto,
    SUBMIT_ANALYSIS_BATCH_EXAMPLES,
    AnalysisBatchCreatedV1Dto,
  )
  @ApiOperation({
    summary: 'Submit a batch of analyses',
    description: `The same operation as POST /v1/analysis/batch: up to ${MAX_ANALYSIS_BATCH_SIZE} POST /v1/analysis/targets bodies in \`analyses\`, queued together, all of them or none (a bad item answers 400 naming it, e.g. \`analyses.3.priority\`).`,
  })
  async createAnalyses(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: SubmitAnalysisBatchDto,
  ): Promise<AnalysisBatchCreatedV1Dto> {
    const { batch, created: analyses } = await this.analyses.createBatch(
      principal,
      toNewAnalyses(body),
      requestId,
    );
    return toAnalysisBatchCreated(batch, analyses);
  }

  @Post('sessions')
  @ApiConcurrentSessionsLimit()
  @HttpCode(201)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({
    summary: 'Create a batch of sessions',
    description: `Up to ${MAX_BATCH_SIZE} POST /v1/sessions bodies in \`sessions\`, created together: all of them or none (a bad item answers 400 naming it, e.g. \`sessions.2.target\`). Follow them with GET /v1/batch/{batch_id}/status.`,
  })
  @ApiJsonBody(CreateSessionBatchV1Dto, CREATE_SESSION_BATCH_EXAMPLES)
  @ApiCreatedResponse({ type: BatchCreatedV1Dto })
  @ApiJsonBodyRefusals()
  async createSessions(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: CreateSessionBatchV1Dto,
  ): Promise<BatchCreatedV1Dto> {
    const inputs = body.sessions.map((item, index) => toNewSession(item, `sessions.${index}.`));
    const { batch, created: sessions } = await this.sessions.createBatch(
      principal,
      inputs,
      requestId,
    );
    return { ...toBatchStatusV1(batch, sessions), sessions: sessions.map(toCreatedV1) };
  }

  @Get(':batch_id/status')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: "A batch's progress: items per status and mean progress",
    description: 'For batches of sessions and of analyses alike (`kind` says which).',
  })
  @ResourceParam('batch_id', BATCH_ID_EXAMPLE, 'batch')
  @ApiOkResponse({ type: BatchStatusV1Dto })
  async status(
    @CurrentPrincipal() principal: Principal,
    @Param('batch_id') id: string,
  ): Promise<BatchStatusV1Dto> {
    const batch = await this.batches.find(principal, id);
    if (batch.kind === 'analyses') {
      return toBatchStatusV1(batch, (await this.analyses.batchItems(batch)).map(toBatchItem));
    }
    if (batch.kind === 'dowsing') {
      return toBatchStatusV1(batch, (await this.dowsing.batchItems(batch)).map(dowsingBatchItem));
    }
    return toBatchStatusV1(batch, await this.sessions.batchItems(batch));
  }

  @Get(':batch_id/results')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: "A batch's results",
    description:
      'Every item as GET /v1/sessions/{id}/results or GET /v1/analysis/{id}/results shows it, in the order of the request.',
  })
  @ResourceParam('batch_id', BATCH_ID_EXAMPLE, 'batch')
  @ApiOkResponse({ type: BatchResultsV1Dto })
  async results(
    @CurrentPrincipal() principal: Principal,
    @Param('batch_id') id: string,
    @LinkBase() linkBase: string,
  ): Promise<BatchResultsV1Dto> {
    const batch = await this.batches.find(principal, id);
    if (batch.kind === 'dowsing') {
      const queries = await this.dowsing.batchItems(batch);
      return {
        ...toBatchStatusV1(batch, queries.map(dowsingBatchItem)),
        results: queries.map(toQueryV1),
      };
    }
    if (batch.kind === 'analyses') {
      const analyses = await this.analyses.batchItems(batch);
      return {
        ...toBatchStatusV1(batch, analyses.map(toBatchItem)),
        results: analyses.map(toResults),
      };
    }
    const sessions = await this.sessions.batchItems(batch);
    return {
      ...toBatchStatusV1(batch, sessions),
      results: sessions.map((session) =>
        toResultsV1(session, (index) => this.sessions.sketchUrl(session, index, linkBase)),
      ),
    };
  }
}
