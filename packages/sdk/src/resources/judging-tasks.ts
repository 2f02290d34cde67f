import type * as Api from '../generated/types.gen.js';
import type { FiltersOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type JudgingTask = ResultOf<Api.JudgingTasksControllerGetV2Responses>;
export type JudgingTaskFilters = FiltersOf<Api.JudgingTasksControllerListV2Data, 'cursor'>;

/** Blind judging: the signed-in judge's tasks, their candidates' material, the ranking. */
export class JudgingTasks extends Resource {
  list(filters: JudgingTaskFilters = {}, options?: RequestOptions): CursorList<JudgingTask> {
    return cursorList((cursor) =>
      this.call(
        { method: 'GET', path: '/v2/judging-tasks', query: { ...filters, cursor } },
        options,
      ),
    );
  }

  get(id: string, options?: RequestOptions): Promise<JudgingTask> {
    return this.call({ method: 'GET', path: `/v2/judging-tasks/${segment(id)}` }, options);
  }

  /** `POST /v2/judging-tasks/{id}/ranking`: every candidate id once, best match first. */
  rank(
    id: string,
    ranking: string[],
    options?: RequestOptions,
  ): Promise<ResultOf<Api.JudgingTasksControllerRankV2Responses>> {
    return this.call(
      { method: 'POST', path: `/v2/judging-tasks/${segment(id)}/ranking`, body: { ranking } },
      options,
    );
  }

  /** A candidate's photo (its position among the candidate's photos, from 1), as a file. */
  photo(
    id: string,
    candidateId: string,
    position: number,
    options?: RequestOptions,
  ): Promise<Blob> {
    return this.call(
      {
        method: 'GET',
        path: `/v2/judging-tasks/${segment(id)}/candidates/${segment(candidateId)}/photos/${position}`,
        as: 'blob',
      },
      options,
    );
  }

  /** An analyst's sketch under judgement, as a file. */
  sketch(id: string, sketchId: string, options?: RequestOptions): Promise<Blob> {
    return this.call(
      {
        method: 'GET',
        path: `/v2/judging-tasks/${segment(id)}/sketches/${segment(sketchId)}`,
        as: 'blob',
      },
      options,
    );
  }
}
