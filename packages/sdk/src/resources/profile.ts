import type * as Api from '../generated/types.gen.js';
import type { ResultOf } from '../api-types.js';
import type { RequestOptions } from '../transport.js';
import { Resource } from './resource.js';

export type Profile = ResultOf<Api.UserProfileControllerProfileV1Responses>;

/** The person signed in (a token of the authorization code flow). */
export class Profiles extends Resource {
  /** `GET /v1/user/profile`: who you are, your organisation and your roles. */
  get(options?: RequestOptions): Promise<Profile> {
    return this.call({ method: 'GET', path: '/v1/user/profile' }, options);
  }
}
