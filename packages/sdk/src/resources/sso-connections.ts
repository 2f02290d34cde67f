import type * as Api from '../generated/types.gen.js';
import type { BodyOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type Organization = ResultOf<Api.OrganizationsV2ControllerCreateV2Responses>;
export type CreateOrganization = BodyOf<Api.OrganizationsV2ControllerCreateV2Data>;
export type SsoConnection = ResultOf<Api.SsoConnectionsV2ControllerGetV2Responses>;
export type CreateSsoConnection = BodyOf<Api.SsoConnectionsV2ControllerCreateV2Data>;
export type UpdateSsoConnection = BodyOf<Api.SsoConnectionsV2ControllerUpdateV2Data>;
export type SsoConnectionTest = ResultOf<Api.SsoConnectionsV2ControllerTestV2Responses>;

/** Enterprise organisations (`/v2/enterprise/organizations`). */
export class Organizations extends Resource {
  create(body: CreateOrganization, options?: RequestOptions): Promise<Organization> {
    return this.call({ method: 'POST', path: '/v2/enterprise/organizations', body }, options);
  }

  list(options?: RequestOptions): CursorList<Organization> {
    return cursorList((cursor) =>
      this.call(
        { method: 'GET', path: '/v2/enterprise/organizations', query: { cursor } },
        options,
      ),
    );
  }

  update(
    id: string,
    body: BodyOf<Api.OrganizationsV2ControllerUpdateV2Data>,
    options?: RequestOptions,
  ): Promise<Organization> {
    return this.call(
      { method: 'PATCH', path: `/v2/enterprise/organizations/${segment(id)}`, body },
      options,
    );
  }
}

/** An organisation's SAML and LDAP sign-in connections. */
export class SsoConnections extends Resource {
  private path(organizationId: string, connectionId?: string): string {
    const base = `/v2/enterprise/organizations/${segment(organizationId)}/sso-connections`;
    return connectionId === undefined ? base : `${base}/${segment(connectionId)}`;
  }

  create(
    organizationId: string,
    body: CreateSsoConnection,
    options?: RequestOptions,
  ): Promise<SsoConnection> {
    return this.call({ method: 'POST', path: this.path(organizationId), body }, options);
  }

  get(organizationId: string, id: string, options?: RequestOptions): Promise<SsoConnection> {
    return this.call({ method: 'GET', path: this.path(organizationId, id) }, options);
  }

  list(organizationId: string, options?: RequestOptions): CursorList<SsoConnection> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: this.path(organizationId), query: { cursor } }, options),
    );
  }

  update(
    organizationId: string,
    id: string,
    body: UpdateSsoConnection,
    options?: RequestOptions,
  ): Promise<SsoConnection> {
    return this.call({ method: 'PATCH', path: this.path(organizationId, id), body }, options);
  }

  async delete(organizationId: string, id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: this.path(organizationId, id) }, options);
  }

  /** `POST …/{id}/test`: checks the connection against its IdP or directory, signs nobody in. */
  test(organizationId: string, id: string, options?: RequestOptions): Promise<SsoConnectionTest> {
    return this.call({ method: 'POST', path: `${this.path(organizationId, id)}/test` }, options);
  }

  /**
   * `POST …/{id}/verify-domains`: looks the pending domains' TXT records up
   * now (`domains[].verification` says what to publish) and marks those found
   * verified; only verified domains sign anyone in.
   */
  verifyDomains(
    organizationId: string,
    id: string,
    options?: RequestOptions,
  ): Promise<SsoConnection> {
    return this.call(
      { method: 'POST', path: `${this.path(organizationId, id)}/verify-domains` },
      options,
    );
  }
}
