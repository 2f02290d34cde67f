import type * as Api from '../generated/types.gen.js';
import type { BodyOf, FiltersOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import type { Assignment } from './sessions.js';
import { Resource, segment, type Submission, submissionCall } from './resource.js';

export type DowsingQuery = ResultOf<Api.DowsingV2ControllerGetV2Responses>;
export type CreateDowsingQuery = BodyOf<Api.DowsingV1ControllerQueryV1Data>;
export type DowsingFilters = FiltersOf<Api.DowsingV2ControllerListV2Data, 'cursor'>;

/** Dowsing queries: asked through version 1, read and listed through version 2. */
export class Dowsing extends Resource {
  /** `POST /v1/dowsing/query`: answered at once by the simulator, `pending` when people answer it. */
  create(
    body: CreateDowsingQuery,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.DowsingV1ControllerQueryV1Responses>> {
    return this.call({ method: 'POST', path: '/v1/dowsing/query', body }, options);
  }

  /** `GET /v2/dowsing/queries/{id}`. */
  get(id: string, options?: RequestOptions): Promise<DowsingQuery> {
    return this.call({ method: 'GET', path: `/v2/dowsing/queries/${segment(id)}` }, options);
  }

  /** Every query matching the filters, newest first (`GET /v2/dowsing/queries`). */
  list(filters: DowsingFilters = {}, options?: RequestOptions): CursorList<DowsingQuery> {
    return cursorList((cursor) =>
      this.call(
        { method: 'GET', path: '/v2/dowsing/queries', query: { ...filters, cursor } },
        options,
      ),
    );
  }

  /** `DELETE /v1/dowsing/queries/{id}`. */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: `/v1/dowsing/queries/${segment(id)}` }, options);
  }

  /**
   * `POST /v2/dowsing/queries/{id}/results`: an assigned analyst's submission (their own
   * token); with `sketches`, sent as multipart/form-data.
   */
  submitResults(id: string, submission: Submission, options?: RequestOptions): Promise<Assignment> {
    return this.call(
      submissionCall(`/v2/dowsing/queries/${segment(id)}/results`, submission),
      options,
    );
  }
}
