import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AnalysesService, AnalysisListsService } from '#analyses';
import { Scope, type Principal } from '#common';
import { Audited } from '../../http/audited.decorator.js';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { v1Page } from '../../http/v1-list.dto.js';
import { AnalysisBatchCreatedV1Dto } from '../../batches/v1/batch-v1.dto.js';
import { toAnalysisFilter, toStatus } from '../analysis-mapping.js';
import { ANALYSIS_ID, AnalysisStatusDto } from '../analysis-status.dto.js';
import { ApiQueuesAnalyses } from '../queues-analyses.decorator.js';
import {
  AnalysisListQueryV1Dto,
  AnalysisListV1Dto,
  AnalysisResultsEnvelopeDto,
  AnalysisSubmittedDto,
} from './analysis-v1.dto.js';
import {
  toAnalysisBatchCreated,
  toNewAnalyses,
  toNewAnalysis,
  toResults,
  toSubmitted,
} from './analysis-v1.mapper.js';
import {
  MAX_ANALYSIS_BATCH_SIZE,
  SUBMIT_ANALYSIS_BATCH_EXAMPLES,
  SUBMIT_ANALYSIS_EXAMPLES,
  SubmitAnalysisBatchDto,
  SubmitAnalysisDto,
} from './submit-analysis-v1.dto.js';

const SUBMIT_DESCRIPTION =
  'Queues a target analysis; the worker fetches and reads the reference material, cross-references your earlier work and assesses it (poll GET /v1/analysis/{analysis_id}, listen for `analysis.*` webhooks, or subscribe on the live-updates WebSocket). Under a backlog higher priorities start first; `estimated_completion` comes from the work ahead and the measured rate.';

@ApiTags('Analysis (v1)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'analysis', version: '1' })
export class AnalysesV1Controller {
  constructor(
    private readonly analyses: AnalysesService,
    private readonly lists: AnalysisListsService,
  ) {}

  @Post('targets')
  @ApiQueuesAnalyses(SubmitAnalysisDto, SUBMIT_ANALYSIS_EXAMPLES, AnalysisSubmittedDto)
  @ApiOperation({ summary: 'Submit a target analysis', description: SUBMIT_DESCRIPTION })
  async submit(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: SubmitAnalysisDto,
  ): Promise<AnalysisSubmittedDto> {
    return toSubmitted(await this.analyses.create(principal, toNewAnalysis(body), requestId));
  }

  @Post('submit')
  @ApiQueuesAnalyses(SubmitAnalysisDto, SUBMIT_ANALYSIS_EXAMPLES, AnalysisSubmittedDto)
  @ApiOperation({
    summary: 'Submit a target analysis (older name of POST /v1/analysis/targets)',
    description: `The same operation as POST /v1/analysis/targets, under the name the spec also lists: same body, same answer. ${SUBMIT_DESCRIPTION}`,
  })
  async submitUnderOlderName(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: SubmitAnalysisDto,
  ): Promise<AnalysisSubmittedDto> {
    return this.submit(principal, requestId, body);
  }

  @Post('batch')
  @ApiQueuesAnalyses(
    SubmitAnalysisBatchDto,
    SUBMIT_ANALYSIS_BATCH_EXAMPLES,
    AnalysisBatchCreatedV1Dto,
  )
  @ApiOperation({
    summary: 'Submit a batch of analyses',
    description: `Up to ${MAX_ANALYSIS_BATCH_SIZE} POST /v1/analysis/targets bodies in \`analyses\`, queued together: all of them or none (a bad item answers 400 naming it, e.g. \`analyses.3.priority\`). The same operation as POST /v1/batch/analysis. Follow them with GET /v1/batch/{batch_id}/status.`,
  })
  async submitBatch(
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

  @Get()
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: "List your organisation's analyses in the caller's mode, newest first",
    description:
      'Filter by `status`, `target_type` and `priority`; page with `limit` (1–100, default 20) and `offset`.',
  })
  @ApiOkResponse({ type: AnalysisListV1Dto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AnalysisListQueryV1Dto,
  ): Promise<AnalysisListV1Dto> {
    return v1Page(
      query,
      (page) => this.lists.list(principal, toAnalysisFilter(query), page),
      toStatus,
    );
  }

  @Post(':analysis_id/cancel')
  @HttpCode(200)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({
    summary: 'Cancel an analysis',
    description:
      'A `queued` or `processing` analysis becomes `failed` with `failure_reason` `cancelled`, and `analysis.failed` is sent. One that has already finished answers 409.',
  })
  @ResourceParam('analysis_id', ANALYSIS_ID.example, 'analysis')
  @ApiResponse({
    status: 409,
    description: 'The analysis has already finished',
    type: ErrorEnvelopeDto,
  })
  @ApiOkResponse({ type: AnalysisStatusDto })
  async cancel(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('analysis_id') id: string,
  ): Promise<AnalysisStatusDto> {
    return toStatus(await this.analyses.cancel(principal, id, requestId));
  }

  @Delete(':analysis_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.SessionsDelete] })
  @Audited('analysis.deleted')
  @ApiOperation({
    summary: 'Delete an analysis',
    description:
      'Removes the analysis, its results and what was read of its material; the events that named it keep only the analysis id and sequence (`"redacted": true`), so replays send nothing of it. An audit record keeps who deleted it and when. A running analysis stops.',
  })
  @ResourceParam('analysis_id', ANALYSIS_ID.example, 'analysis')
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('analysis_id') id: string,
  ): Promise<void> {
    await this.analyses.delete(principal, id);
  }

  @Get(':analysis_id')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: 'Read the status of an analysis',
    description:
      'Progress, the current step and each reference item as the worker read it (hash, size, sniffed type, dimensions and EXIF of photos, pages and text of documents).',
  })
  @ResourceParam('analysis_id', ANALYSIS_ID.example, 'analysis')
  @ApiOkResponse({ type: AnalysisStatusDto })
  async status(
    @CurrentPrincipal() principal: Principal,
    @Param('analysis_id') id: string,
  ): Promise<AnalysisStatusDto> {
    return toStatus(await this.analyses.get(principal, id));
  }

  @Get(':analysis_id/results')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: 'Read the results of an analysis',
    description:
      '`results` appears once the analysis has completed; `metadata` says which engine did it, what evidence the numbers rest on, and what the confidence score was built from.',
  })
  @ResourceParam('analysis_id', ANALYSIS_ID.example, 'analysis')
  @ApiOkResponse({ type: AnalysisResultsEnvelopeDto })
  async results(
    @CurrentPrincipal() principal: Principal,
    @Param('analysis_id') id: string,
  ): Promise<AnalysisResultsEnvelopeDto> {
    return toResults(await this.analyses.get(principal, id));
  }
}
