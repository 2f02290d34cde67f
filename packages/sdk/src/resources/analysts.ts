import type * as Api from '../generated/types.gen.js';
import type { BodyOf, FiltersOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type Analyst = ResultOf<Api.AnalystsV2ControllerGetV2Responses>;
export type CreateAnalyst = BodyOf<Api.AnalystsV2ControllerCreateV2Data>;
export type UpdateAnalyst = BodyOf<Api.AnalystsV2ControllerUpdateV2Data>;
export type AnalystFilters = FiltersOf<Api.AnalystsV2ControllerListV2Data, 'cursor'>;

/** The organisation's people: admins, analysts and judges (`/v2/analysts`). */
export class Analysts extends Resource {
  /** `POST /v2/analysts`: with a password, or an `invitation_url` shown once. */
  create(
    body: CreateAnalyst,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.AnalystsV2ControllerCreateV2Responses>> {
    return this.call({ method: 'POST', path: '/v2/analysts', body }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Analyst> {
    return this.call({ method: 'GET', path: `/v2/analysts/${segment(id)}` }, options);
  }

  list(filters: AnalystFilters = {}, options?: RequestOptions): CursorList<Analyst> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: '/v2/analysts', query: { ...filters, cursor } }, options),
    );
  }

  /** `PATCH /v2/analysts/{id}`: name, roles, status. */
  update(id: string, body: UpdateAnalyst, options?: RequestOptions): Promise<Analyst> {
    return this.call({ method: 'PATCH', path: `/v2/analysts/${segment(id)}`, body }, options);
  }

  /** `DELETE /v2/analysts/{id}`: disables the person (their history stays). */
  async disable(id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: `/v2/analysts/${segment(id)}` }, options);
  }

  /** `POST /v2/analysts/{id}/invitation`: a fresh invitation link for someone not yet signed up. */
  reinvite(
    id: string,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.AnalystsV2ControllerReinviteV2Responses>> {
    return this.call({ method: 'POST', path: `/v2/analysts/${segment(id)}/invitation` }, options);
  }
}
