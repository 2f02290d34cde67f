import {
  Body,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Scope, type Principal } from '#common';
import { ReportsService } from '#reports';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import {
  GENERATE_REPORT_EXAMPLES,
  GenerateReportDto,
  REPORT_ID,
  ReportDto,
  ReportListDto,
  ReportListQueryDto,
} from './report-v2.dto.js';
import { toNewReport, toReportDto } from './report-v2.mapper.js';

/**
 * Reports: every route needs `analytics:export` — reading a report or its
 * document is reading the export, which `analytics:read` alone does not grant.
 */
@ApiTags('Reports (v2)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'reports', version: '2' })
export class ReportsV2Controller {
  constructor(private readonly reports: ReportsService) {}

  @Post('generate')
  @HttpCode(202)
  @Auth({ scopes: [Scope.AnalyticsExport] })
  @ApiOperation({
    summary: 'Ask for a report; the worker builds it',
    description:
      "Answers 202 with the report `queued`; the worker announces the end with a `report.completed` or `report.failed` event (webhooks, `GET /v2/events`), or poll `GET /v2/reports/{report_id}` until `completed` (or `failed`), then download it. `history` reports hold your cases in the range (never classified ones) in the caller's mode, newest first. Reports are kept `REPORT_RETENTION_DAYS` (`expires_at`), then answer 404. Send `Idempotency-Key` to retry safely.",
  })
  @ApiJsonBody(GenerateReportDto, GENERATE_REPORT_EXAMPLES)
  @ApiAcceptedResponse({ type: ReportDto, description: 'Queued' })
  async generate(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: GenerateReportDto,
  ): Promise<ReportDto> {
    return toReportDto(await this.reports.create(principal, toNewReport(body), requestId));
  }

  @Get()
  @Auth({ scopes: [Scope.AnalyticsExport] })
  @ApiOperation({
    summary: "List your organisation's reports in the caller's mode, newest first",
    description:
      'Expired reports are not listed. Pages with `per_page` and the opaque `cursor` of the previous page.',
  })
  @ApiOkResponse({ type: ReportListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ReportListQueryDto,
  ): Promise<ReportListDto> {
    const page = await this.reports.page(principal, pageRequest('report', query));
    return v2Page('report', page, query.per_page, toReportDto);
  }

  @Get(':report_id')
  @Auth({ scopes: [Scope.AnalyticsExport] })
  @ApiOperation({
    summary: 'Read a report: its status, size and links',
    description: '`links.download` appears once the report is `completed`.',
  })
  @ResourceParam('report_id', REPORT_ID.example, 'report')
  @ApiOkResponse({ type: ReportDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('report_id') id: string,
  ): Promise<ReportDto> {
    return toReportDto(await this.reports.get(principal, id));
  }

  @Get(':report_id/download')
  @Auth({ scopes: [Scope.AnalyticsExport] })
  @ApiOperation({
    summary: "Download a completed report's document",
    description:
      'The document in its format (`text/csv`, `application/json`, `application/pdf`) as an attachment named by `filename`. 409 while the report is `queued`, `processing` or `failed`.',
  })
  @ResourceParam('report_id', REPORT_ID.example, 'report')
  @ApiProduces('text/csv', 'application/json', 'application/pdf')
  @ApiOkResponse({
    description: 'The document',
    content: {
      'text/csv': { schema: { type: 'string' } },
      'application/json': { schema: { type: 'object', additionalProperties: true } },
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiResponse({ status: 409, description: 'The report is not completed', type: ErrorEnvelopeDto })
  async download(
    @CurrentPrincipal() principal: Principal,
    @Param('report_id') id: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const document = await this.reports.content(principal, id);
    response.setHeader('Cache-Control', 'private, no-store');
    return new StreamableFile(document.content, {
      type: document.contentType,
      length: document.byteSize,
      disposition: `attachment; filename="${document.filename}"`,
    });
  }

  @Delete(':report_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.AnalyticsExport] })
  @ApiOperation({ summary: 'Delete a report and its document' })
  @ResourceParam('report_id', REPORT_ID.example, 'report')
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('report_id') id: string,
  ): Promise<void> {
    await this.reports.delete(principal, id);
  }
}
