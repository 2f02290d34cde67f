import type * as Api from '../generated/types.gen.js';
import type { BodyOf, FiltersOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment, type Submission, submissionCall } from './resource.js';

export type Session = Api.SessionV2Dto;
export type SessionResults = Api.SessionResultsEnvelopeV1Dto;
export type CreateSession = BodyOf<Api.SessionsV2ControllerCreateV2Data>;
export type CreateCollaborativeSession = BodyOf<Api.SessionsV2ControllerCreateCollaborativeV2Data>;
export type SessionFilters = FiltersOf<Api.SessionsV2ControllerListV2Data, 'cursor'>;
export type SessionSubmission = BodyOf<Api.SessionsV2ControllerSubmitResultsV2Data>;
export type Assignment = Api.AssignmentDto;

/** Sessions: version 2 where it has a path, version 1 (results, cancel, delete) otherwise. */
export class Sessions extends Resource {
  /** `POST /v2/sessions/create`. */
  create(body: CreateSession, options?: RequestOptions): Promise<Session> {
    return this.call<ResultOf<Api.SessionsV2ControllerCreateV2Responses>>(
      { method: 'POST', path: '/v2/sessions/create', body },
      options,
    );
  }

  /** `POST /v2/sessions/collaborative`: one target, several analysts. */
  createCollaborative(
    body: CreateCollaborativeSession,
    options?: RequestOptions,
  ): Promise<Session> {
    return this.call({ method: 'POST', path: '/v2/sessions/collaborative', body }, options);
  }

  /** `GET /v2/sessions/{id}`: the session with its later-generation results once completed. */
  get(id: string, options?: RequestOptions): Promise<Session> {
    return this.call({ method: 'GET', path: `/v2/sessions/${segment(id)}` }, options);
  }

  /** `GET /v1/sessions/{id}/results` (version 2 folds the results into `get`). */
  results(id: string, options?: RequestOptions): Promise<SessionResults> {
    return this.call({ method: 'GET', path: `/v1/sessions/${segment(id)}/results` }, options);
  }

  /** Every session matching the filters, newest first, page after page (`GET /v2/sessions`). */
  list(filters: SessionFilters = {}, options?: RequestOptions): CursorList<Session> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: '/v2/sessions', query: { ...filters, cursor } }, options),
    );
  }

  /** A sketch of the session's results (`results.sketches[].url` ends with its file name), as a file. */
  sketch(id: string, file: string, options?: RequestOptions): Promise<Blob> {
    return this.call(
      { method: 'GET', path: `/v1/sessions/${segment(id)}/sketches/${segment(file)}`, as: 'blob' },
      options,
    );
  }

  /** `POST /v1/sessions/{id}/cancel`: an unfinished session becomes `failed` (`cancelled`). */
  cancel(
    id: string,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.SessionsV1ControllerCancelV1Responses>> {
    return this.call({ method: 'POST', path: `/v1/sessions/${segment(id)}/cancel` }, options);
  }

  /** `DELETE /v1/sessions/{id}`. */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: `/v1/sessions/${segment(id)}` }, options);
  }

  /**
   * `POST /v2/sessions/{id}/results`: an assigned analyst's submission (their own
   * token); with `sketches`, sent as multipart/form-data.
   */
  submitResults(id: string, submission: Submission, options?: RequestOptions): Promise<Assignment> {
    return this.call(submissionCall(`/v2/sessions/${segment(id)}/results`, submission), options);
  }

  /** `POST /v2/sessions/{id}/merge`. */
  merge(
    id: string,
    body: BodyOf<Api.SessionsV2ControllerMergeV2Data>,
    options?: RequestOptions,
  ): Promise<Session> {
    return this.call({ method: 'POST', path: `/v2/sessions/${segment(id)}/merge`, body }, options);
  }
}
