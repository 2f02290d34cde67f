import type * as Api from '../generated/types.gen.js';
import type { BodyOf, FiltersOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import type { Assignment } from './sessions.js';
import { Resource, segment, type Submission, submissionCall } from './resource.js';

export type Analysis = ResultOf<Api.AnalysesV1ControllerStatusV1Responses>;
export type AnalysisResults = ResultOf<Api.AnalysesV1ControllerResultsV1Responses>;
export type AnalysisListItem = Api.AnalysisListV2Dto['data'][number];
export type CreateAnalysis = BodyOf<Api.AnalysesV1ControllerSubmitV1Data>;
export type AnalysisFilters = FiltersOf<Api.AnalysesV2ControllerListV2Data, 'cursor'>;

/** Target analyses: created and read through version 1, listed through version 2. */
export class Analyses extends Resource {
  /** `POST /v1/analysis/targets`: queued at once (202). */
  create(
    body: CreateAnalysis,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.AnalysesV1ControllerSubmitV1Responses>> {
    return this.call({ method: 'POST', path: '/v1/analysis/targets', body }, options);
  }

  /** `GET /v1/analysis/{id}`. */
  get(id: string, options?: RequestOptions): Promise<Analysis> {
    return this.call({ method: 'GET', path: `/v1/analysis/${segment(id)}` }, options);
  }

  /** `GET /v1/analysis/{id}/results`. */
  results(id: string, options?: RequestOptions): Promise<AnalysisResults> {
    return this.call({ method: 'GET', path: `/v1/analysis/${segment(id)}/results` }, options);
  }

  /** Every analysis matching the filters, newest first (`GET /v2/analysis`). */
  list(filters: AnalysisFilters = {}, options?: RequestOptions): CursorList<AnalysisListItem> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: '/v2/analysis', query: { ...filters, cursor } }, options),
    );
  }

  /** `POST /v1/analysis/{id}/cancel`. */
  cancel(
    id: string,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.AnalysesV1ControllerCancelV1Responses>> {
    return this.call({ method: 'POST', path: `/v1/analysis/${segment(id)}/cancel` }, options);
  }

  /** `DELETE /v1/analysis/{id}`. */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: `/v1/analysis/${segment(id)}` }, options);
  }

  /**
   * `POST /v2/analysis/{id}/results`: an assigned analyst's submission (their own
   * token); with `sketches`, sent as multipart/form-data.
   */
  submitResults(id: string, submission: Submission, options?: RequestOptions): Promise<Assignment> {
    return this.call(submissionCall(`/v2/analysis/${segment(id)}/results`, submission), options);
  }
}
