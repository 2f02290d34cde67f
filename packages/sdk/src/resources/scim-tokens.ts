import type * as Api from '../generated/types.gen.js';
import type { BodyOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type ScimToken = Api.ScimTokenListDto['data'][number];
export type CreateScimToken = BodyOf<Api.ScimTokensV2ControllerCreateV2Data>;
/** A new token: the only answer that shows `token` itself. */
export type CreatedScimToken = ResultOf<Api.ScimTokensV2ControllerCreateV2Responses>;

/**
 * An organisation's SCIM tokens: the bearer tokens its identity provider
 * (Okta, Microsoft Entra ID) provisions people and groups with at `/scim/v2`.
 * Creating and revoking need `organizations:write` and a live-mode credential.
 */
export class ScimTokens extends Resource {
  private path(organizationId: string, tokenId?: string): string {
    const base = `/v2/enterprise/organizations/${segment(organizationId)}/scim-tokens`;
    return tokenId === undefined ? base : `${base}/${segment(tokenId)}`;
  }

  /** `POST …/scim-tokens`: the answer shows the token once (only its hash is kept). */
  create(
    organizationId: string,
    body: CreateScimToken = {},
    options?: RequestOptions,
  ): Promise<CreatedScimToken> {
    return this.call({ method: 'POST', path: this.path(organizationId), body }, options);
  }

  /** Every token, newest first, revoked ones too (with `revoked_at`); never the tokens themselves. */
  list(organizationId: string, options?: RequestOptions): CursorList<ScimToken> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: this.path(organizationId), query: { cursor } }, options),
    );
  }

  /** `DELETE …/scim-tokens/{id}`: it stops working at once; revoking it again changes nothing. */
  async revoke(organizationId: string, id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: this.path(organizationId, id) }, options);
  }
}
