import type * as Api from '../generated/types.gen.js';
import type { BodyOf, ResultOf } from '../api-types.js';
import { type ListIterator, offsetList, type OffsetPage } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type ApiKey = ResultOf<Api.ApiKeysControllerGetV1Responses>;
export type CreateApiKey = BodyOf<Api.ApiKeysControllerCreateV1Data>;

/** API keys (version 1; creating and rotating need an OAuth access token, not a key). */
export class ApiKeys extends Resource {
  /** `POST /v1/api-keys`: the answer shows the key once. */
  create(
    body: CreateApiKey,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.ApiKeysControllerCreateV1Responses>> {
    return this.call({ method: 'POST', path: '/v1/api-keys', body }, options);
  }

  get(id: string, options?: RequestOptions): Promise<ApiKey> {
    return this.call({ method: 'GET', path: `/v1/api-keys/${segment(id)}` }, options);
  }

  /** Every key (`GET /v1/api-keys`, offset pages). */
  list(options?: RequestOptions): ListIterator<ApiKey, OffsetPage<ApiKey>> {
    return offsetList((offset) =>
      this.call({ method: 'GET', path: '/v1/api-keys', query: { offset, limit: 100 } }, options),
    );
  }

  revoke(
    id: string,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.ApiKeysControllerRevokeV1Responses>> {
    return this.call({ method: 'POST', path: `/v1/api-keys/${segment(id)}/revoke` }, options);
  }

  /** A new key with the same scopes; the old one keeps working for the overlap. */
  rotate(
    id: string,
    body: BodyOf<Api.ApiKeysControllerRotateV1Data> = {},
    options?: RequestOptions,
  ): Promise<ResultOf<Api.ApiKeysControllerRotateV1Responses>> {
    return this.call({ method: 'POST', path: `/v1/api-keys/${segment(id)}/rotate`, body }, options);
  }
}
