import type * as Api from '../generated/types.gen.js';
import type { FiltersOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type AssignmentDetail = ResultOf<Api.AssignmentsV2ControllerGetV2Responses>;
export type AssignmentFilters = FiltersOf<Api.AssignmentsV2ControllerListV2Data, 'cursor'>;

/** The signed-in analyst's assignments: blind until the work closes. */
export class Assignments extends Resource {
  list(filters: AssignmentFilters = {}, options?: RequestOptions): CursorList<AssignmentDetail> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: '/v2/assignments', query: { ...filters, cursor } }, options),
    );
  }

  get(id: string, options?: RequestOptions): Promise<AssignmentDetail> {
    return this.call({ method: 'GET', path: `/v2/assignments/${segment(id)}` }, options);
  }

  /** `POST /v2/assignments/{id}/decline`: another free analyst takes it over. */
  decline(
    id: string,
    body: { reason?: string } = {},
    options?: RequestOptions,
  ): Promise<ResultOf<Api.AssignmentsV2ControllerDeclineV2Responses>> {
    return this.call(
      { method: 'POST', path: `/v2/assignments/${segment(id)}/decline`, body },
      options,
    );
  }

  /** One of your submitted sketches, as a file. */
  sketch(id: string, sketchId: string, options?: RequestOptions): Promise<Blob> {
    return this.call(
      {
        method: 'GET',
        path: `/v2/assignments/${segment(id)}/sketches/${segment(sketchId)}`,
        as: 'blob',
      },
      options,
    );
  }
}
