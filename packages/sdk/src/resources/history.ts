import type * as Api from '../generated/types.gen.js';
import type { BodyOf, FiltersOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type HistoryCase = ResultOf<Api.HistoryV1ControllerGetV1Responses>;
export type HistorySearchItem = Api.HistorySearchV2Dto['data'][number];
export type HistoryImportReport = ResultOf<Api.HistoryImportV2ControllerImportCasesV2Responses>;
export type HistoryFilters = FiltersOf<Api.HistoryV2ControllerSearchCasesV2Data, 'cursor'>;

/** The searchable history of finished work. */
export class History extends Resource {
  /** Every case matching the search, best first (`GET /v2/history/search`). */
  search(filters: HistoryFilters = {}, options?: RequestOptions): CursorList<HistorySearchItem> {
    return cursorList((cursor) =>
      this.call(
        { method: 'GET', path: '/v2/history/search', query: { ...filters, cursor } },
        options,
      ),
    );
  }

  /** `GET /v1/history/{case_id}`. */
  get(caseId: string, options?: RequestOptions): Promise<HistoryCase> {
    return this.call({ method: 'GET', path: `/v1/history/${segment(caseId)}` }, options);
  }

  /** `PUT /v1/history/{case_id}/outcome`: what really happened (verified outcomes). */
  recordOutcome(
    caseId: string,
    body: BodyOf<Api.HistoryV1ControllerRecordOutcomeV1Data>,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.HistoryV1ControllerRecordOutcomeV1Responses>> {
    return this.call(
      { method: 'PUT', path: `/v1/history/${segment(caseId)}/outcome`, body },
      options,
    );
  }

  /**
   * `POST /v2/history/import`: finished work from elsewhere, as NDJSON (one
   * case per line) or CSV; the answer is the per-row report. `dryRun` checks
   * and counts without storing anything.
   */
  import(
    content: string | Blob,
    format: 'ndjson' | 'csv',
    { dryRun = false }: { dryRun?: boolean } = {},
    options?: RequestOptions,
  ): Promise<HistoryImportReport> {
    return this.call(
      {
        method: 'POST',
        path: '/v2/history/import',
        query: dryRun ? { dry_run: true } : {},
        content: { body: content, type: IMPORT_TYPES[format] },
      },
      options,
    );
  }
}

const IMPORT_TYPES = { ndjson: 'application/x-ndjson', csv: 'text/csv' } as const;
