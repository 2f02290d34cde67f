import type * as Api from '../generated/types.gen.js';
import type { BodyOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type Target = ResultOf<Api.TargetsControllerGetV2Responses>;
export type CreateTarget = BodyOf<Api.TargetsControllerCreateV2Data>;

/** The organisation's target pool (`/v2/targets`): what blind work is tasked against. */
export class Targets extends Resource {
  /** `POST /v2/targets`: photos are fetched from their URLs in the background. */
  create(body: CreateTarget, options?: RequestOptions): Promise<Target> {
    return this.call({ method: 'POST', path: '/v2/targets', body }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Target> {
    return this.call({ method: 'GET', path: `/v2/targets/${segment(id)}` }, options);
  }

  list(options?: RequestOptions): CursorList<Target> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: '/v2/targets', query: { cursor } }, options),
    );
  }

  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: `/v2/targets/${segment(id)}` }, options);
  }

  /** A stored photo of the target, as a file. */
  photo(id: string, photoId: string, options?: RequestOptions): Promise<Blob> {
    return this.call(
      {
        method: 'GET',
        path: `/v2/targets/${segment(id)}/photos/${segment(photoId)}`,
        as: 'blob',
      },
      options,
    );
  }
}
