import { HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Scope, type Principal } from '#common';
import {
  CSV_LIST_SEPARATOR,
  HistoryImportService,
  IMPORT_MEDIA_TYPES,
  MAX_IMPORT_ROWS,
  MAX_REPORTED_ERRORS,
  REQUIRED_IMPORT_FIELDS,
  type ImportFormat,
  type ImportReport,
} from '#history';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { mediaTypeOf, readStreamedBody } from '../../http/streamed-bodies.js';
import {
  HistoryImportQueryDto,
  HistoryImportReportDto,
  HistoryImportRowDto,
  IMPORT_CSV_EXAMPLES,
  IMPORT_NDJSON_EXAMPLES,
} from './history-import.dto.js';

const ROW_SCHEMA = `HistoryImportRowDto (under Schemas)`;

const DESCRIPTION = `Imports your team's earlier records as history cases (up to ${MAX_IMPORT_ROWS.toLocaleString('en')} rows and HISTORY_IMPORT_MAX_BYTES, 64 MiB unless the deployment says otherwise), so they are searched, matched as similar cases and counted in verified statistics with the service's own work.

**Body**, read as it arrives (never held whole), UTF-8:
- \`${IMPORT_MEDIA_TYPES.ndjson}\`: one JSON object per line, each a ${ROW_SCHEMA}; blank lines are ignored. \`null\` is read as a field left out.
- \`${IMPORT_MEDIA_TYPES.csv}\`: a header row naming the columns, then one record per case (RFC 4180 quoting). Columns are the row's fields with nested ones flattened by a dot (\`location.latitude\`, \`process.duration_minutes\`, \`results.description\`, \`coordinates.longitude\`); list fields (\`analysts\`, \`descriptors\`, \`process.phases\`) are one cell with items separated by \`${CSV_LIST_SEPARATOR}\`; \`true\`/\`false\` for booleans; an empty cell is a field left out. The header must name ${REQUIRED_IMPORT_FIELDS.map((field) => `\`${field}\``).join(', ')} and nothing unknown or twice (else 400 naming the column).

**Rows** are checked one by one and stored whole or not at all: a refused row is listed in \`errors\` (its line in the file — a CSV header is line 1 — the field as a dotted path, the issue: unknown fields, outcome fields without \`verdict\`, dates in the future…) and skipped; the others are stored. An \`external_id\` already imported in your organisation and mode updates its case instead of adding one: the work's fields become the row's (absent ones cleared), while the verified outcome is replaced only by a row with a \`verdict\` — one recorded since through \`PUT /v1/history/{case_id}/outcome\` survives re-importing the original records. The same \`external_id\` twice in one file: the later row wins and counts as updated. Imported cases are \`completed\` work with source \`import\`; \`privacy_level\` \`classified\` keeps a case out of searches; \`process.modality\` is its subtype (but for dowsing). Importing announces no events (no \`history.outcome_verified\` per row).

**All or nothing**: the import is one transaction, so a body over a limit (413, however far in), text that is not UTF-8, a CSV header or quoting that cannot be read (400 naming \`body\` or the column), or a dropped connection leaves nothing stored. \`errors\` lists at most ${MAX_REPORTED_ERRORS} problems (\`errors_truncated\`). One import per organisation and mode runs at a time (409 while another does). \`dry_run=true\` runs the same import and rolls it back: the same report, nothing stored.

**Idempotency-Key** is not used here (a key sent is ignored): the body is streamed, so it cannot be compared with a first request's. Sending the same file again is safe by itself: each \`external_id\` updates its case to the same content (counted as updated). The request counts once against the rate limits, whatever its size.`;

/** The media type of a request the body middleware let through (streamed-bodies.ts). */
function formatOf(request: Request): ImportFormat {
  return mediaTypeOf(request.headers['content-type']) === IMPORT_MEDIA_TYPES.csv ? 'csv' : 'ndjson';
}

function toReportDto(report: ImportReport): HistoryImportReportDto {
  return {
    imported: report.imported,
    updated: report.updated,
    failed: report.failed,
    errors: report.errors.map(({ line, field, issue }) => ({ line, field, issue })),
    errors_truncated: report.errorsTruncated,
    dry_run: report.dryRun,
  };
}

@ApiTags('History (v2)')
@ApiExtraModels(HistoryImportRowDto)
@ApiController({ path: 'history', version: '2' })
export class HistoryImportV2Controller {
  constructor(private readonly imports: HistoryImportService) {}

  @Post('import')
  @HttpCode(200)
  @Auth({ scopes: [Scope.AnalyticsAdmin] })
  @ApiOperation({
    summary: 'Import past cases from NDJSON or CSV (streamed, all or nothing)',
    description: DESCRIPTION,
    requestBody: {
      required: true,
      description: `NDJSON (one ${ROW_SCHEMA} per line) or CSV (a header row, nested fields flattened by a dot)`,
      content: {
        [IMPORT_MEDIA_TYPES.ndjson]: {
          schema: {
            type: 'string',
            description: `Lines of JSON, each a ${ROW_SCHEMA}`,
          },
          examples: IMPORT_NDJSON_EXAMPLES,
        },
        [IMPORT_MEDIA_TYPES.csv]: {
          schema: {
            type: 'string',
            description: `A header row of ${ROW_SCHEMA} field paths, then one record per case`,
          },
          examples: IMPORT_CSV_EXAMPLES,
        },
      },
    },
  })
  @ApiOkResponse({
    type: HistoryImportReportDto,
    description:
      'What was imported, updated and refused (row by row). Also for a dry run, with `dry_run: true`.',
  })
  @ApiResponse({
    status: 400,
    description:
      'VALIDATION_ERROR: `dry_run` not true or false; the body not UTF-8 or not readable as CSV (`body`, with the line); a CSV header without a required column or with an unknown or repeated one (the column, or `header`). Nothing was stored.',
    type: ErrorEnvelopeDto,
  })
  @ApiResponse({
    status: 409,
    description:
      'CONFLICT: another import of this organisation and mode is still running; retry after `Retry-After` seconds. Nothing was stored.',
    type: ErrorEnvelopeDto,
  })
  @ApiResponse({
    status: 413,
    description: `PAYLOAD_TOO_LARGE naming \`body\`: more than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows, or more bytes than HISTORY_IMPORT_MAX_BYTES (\`suggested_value\`: the limit). Nothing was stored.`,
    type: ErrorEnvelopeDto,
  })
  @ApiResponse({
    status: 415,
    description: `UNSUPPORTED_MEDIA_TYPE naming \`Content-Type\` (neither ${IMPORT_MEDIA_TYPES.ndjson} nor ${IMPORT_MEDIA_TYPES.csv}, or a charset other than UTF-8) or \`Content-Encoding\` (compressed bodies are not taken)`,
    type: ErrorEnvelopeDto,
  })
  async importCases(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Query() query: HistoryImportQueryDto,
    @Req() request: Request,
  ): Promise<HistoryImportReportDto> {
    const report = await readStreamedBody(request, (body, declaredBytes) =>
      this.imports.import(principal, {
        format: formatOf(request),
        body,
        declaredBytes,
        dryRun: query.dry_run ?? false,
        requestId,
      }),
    );
    return toReportDto(report);
  }
}
