import type * as Api from '../generated/types.gen.js';
import type { BodyOf, FiltersOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type Report = ResultOf<Api.ReportsV2ControllerGetV2Responses>;
export type ReportFilters = FiltersOf<Api.ReportsV2ControllerListV2Data, 'cursor'>;
export type GenerateReport = BodyOf<Api.ReportsV2ControllerGenerateV2Data>;

/** Reports (`/v2/reports`): generated in the background, then downloaded. */
export class Reports extends Resource {
  /** `POST /v2/reports/generate`: answers at once; the report is ready when its status says so. */
  generate(
    body: GenerateReport,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.ReportsV2ControllerGenerateV2Responses>> {
    return this.call({ method: 'POST', path: '/v2/reports/generate', body }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Report> {
    return this.call({ method: 'GET', path: `/v2/reports/${segment(id)}` }, options);
  }

  list(filters: ReportFilters = {}, options?: RequestOptions): CursorList<Report> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: '/v2/reports', query: { ...filters, cursor } }, options),
    );
  }

  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: `/v2/reports/${segment(id)}` }, options);
  }

  /** The finished report's file (JSON, CSV or PDF, as it was asked for). */
  download(id: string, options?: RequestOptions): Promise<Blob> {
    return this.call(
      { method: 'GET', path: `/v2/reports/${segment(id)}/download`, as: 'blob' },
      options,
    );
  }
}
