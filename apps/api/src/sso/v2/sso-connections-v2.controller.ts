import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { AppSettings } from '#config';
import { SsoConnectionsService, type SsoConnection } from '#sso';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Audited } from '../../http/audited.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page, V2ListQueryDto } from '../../http/v2-list.js';
import {
  SsoConnectionDto,
  SsoConnectionListDto,
  SsoTestReportDto,
} from './sso-connection-response-v2.dto.js';
import {
  CREATE_SSO_CONNECTION_EXAMPLES,
  CreateSsoConnectionDto,
  UpdateSsoConnectionDto,
} from './sso-connection-v2.dto.js';
import { toSsoConnectionDto, toSsoConnectionInput } from './sso-connection-v2.mapper.js';
import { SSO_CONNECTION_ID } from '../sso-connection-id.js';

const ORGANIZATION_EXAMPLE = 'org_01jh2x7v4ke8rbk3a8y0v0d7qz';

/**
 * An organisation's single sign-on connections, managed by the organisation
 * itself (`organizations:write`; reading with `organizations:read`). Another
 * organisation's id in the path is 404, as every tenant's resource is.
 */
@ApiTags('Enterprise SSO (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'enterprise/organizations/:organization_id/sso-connections', version: '2' })
export class SsoConnectionsV2Controller {
  constructor(
    private readonly connections: SsoConnectionsService,
    private readonly settings: AppSettings,
  ) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('sso_connection.created')
  @ApiOperation({
    summary: 'Add a SAML identity provider or an LDAP directory',
    description:
      'SAML: give the IdP as metadata XML, an https metadata URL (fetched now and daily), or its entity id, SSO URL and certificates; the answer carries our `sp_entity_id`, `acs_url` and `sp_metadata_url` to give the IdP. LDAP: the directory URL and TLS, the service account, where and how people and groups are found; `bind_password` is sealed and never returned. A field of the other type, a bad setting (metadata that does not parse, a certificate that does not, a filter without its placeholder, plain LDAP to a host the operator did not allow-list) is a 400 naming it; a public webmail domain is a 400 naming `email_domains`. Each domain starts `pending`, with the TXT record to publish in `domains[].verification`; it signs nobody in until `POST …/verify-domains` (or the worker’s hourly look-up) finds the record. A domain another organisation has verified is a 409 naming `email_domains`.',
  })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ApiJsonBody(CreateSsoConnectionDto, CREATE_SSO_CONNECTION_EXAMPLES)
  @ApiCreatedResponse({ type: SsoConnectionDto })
  @ApiResponse({
    status: 409,
    description: 'An email domain is verified by another connection',
    type: ErrorEnvelopeDto,
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateSsoConnectionDto,
  ): Promise<SsoConnectionDto> {
    const created = await this.connections.create(principal, toSsoConnectionInput(body));
    return this.answer(created);
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: "The organisation's SSO connections (the same in both modes), newest first",
  })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ApiOkResponse({ type: SsoConnectionListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V2ListQueryDto,
  ): Promise<SsoConnectionListDto> {
    const page = await this.connections.page(principal, pageRequest('ssoConnection', query));
    const withDomains = await this.connections.withDomains(page.rows);
    return v2Page('ssoConnection', { ...page, rows: withDomains }, query.per_page, (connection) =>
      toSsoConnectionDto(connection, this.settings.publicUrl),
    );
  }

  @Get(':connection_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: 'Read an SSO connection (never its secrets)' })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ResourceParam('connection_id', SSO_CONNECTION_ID.example, 'ssoConnection')
  @ApiOkResponse({ type: SsoConnectionDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('connection_id') id: string,
  ): Promise<SsoConnectionDto> {
    return this.answer(await this.connections.get(principal, id));
  }

  @Patch(':connection_id')
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('sso_connection.updated')
  @ApiOperation({
    summary: 'Change an SSO connection',
    description:
      'Any field of its type but `type`; absent fields stay. A new IdP source replaces the old one; `bind_password` replaces the stored one.',
  })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ResourceParam('connection_id', SSO_CONNECTION_ID.example, 'ssoConnection')
  @ApiJsonBody(UpdateSsoConnectionDto, {
    disable: { summary: 'Stop signing anyone in', value: { enabled: false } },
  })
  @ApiOkResponse({ type: SsoConnectionDto })
  @ApiResponse({
    status: 409,
    description: 'An email domain is verified by another connection',
    type: ErrorEnvelopeDto,
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('connection_id') id: string,
    @Body() body: UpdateSsoConnectionDto,
  ): Promise<SsoConnectionDto> {
    const updated = await this.connections.update(principal, id, toSsoConnectionInput(body));
    return this.answer(updated);
  }

  @Delete(':connection_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('sso_connection.deleted')
  @ApiOperation({ summary: 'Delete an SSO connection: its domains sign in with passwords again' })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ResourceParam('connection_id', SSO_CONNECTION_ID.example, 'ssoConnection')
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('connection_id') id: string,
  ): Promise<void> {
    await this.connections.delete(principal, id);
  }

  @Post(':connection_id/test')
  @HttpCode(200)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @ApiOperation({
    summary: 'Check a connection against its IdP or directory',
    description:
      'LDAP: connects, negotiates TLS, binds as the service account and runs one search under `user_base_dn`. SAML: reads the metadata again from `idp_metadata_url` (when set) and checks that the IdP certificates are in date. Each check says whether it passed and, if not, why.',
  })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ResourceParam('connection_id', SSO_CONNECTION_ID.example, 'ssoConnection')
  @ApiOkResponse({ type: SsoTestReportDto })
  async test(
    @CurrentPrincipal() principal: Principal,
    @Param('connection_id') id: string,
  ): Promise<SsoTestReportDto> {
    return this.connections.test(principal, id);
  }

  @Post(':connection_id/verify-domains')
  @HttpCode(200)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @Audited('sso_connection.domains_verified')
  @ApiOperation({
    summary: 'Look up the domains’ TXT records now, and mark those found verified',
    description:
      'For each `pending` domain, asks DNS for `_sas-verification.<domain>` and marks the domain `verified` when a TXT record there is its `verification.value`. A verified domain routes the sign-ins of its email addresses to this connection and can no longer be claimed by another organisation; the first organisation to verify a domain holds it (another connection’s claim stays pending). The worker looks pending domains up every hour too. Each domain verified is an `sso_connection.domains_verified` audit event (a call that verifies none records nothing). Answers the connection with each domain’s status.',
  })
  @ResourceParam('organization_id', ORGANIZATION_EXAMPLE, 'organization')
  @ResourceParam('connection_id', SSO_CONNECTION_ID.example, 'ssoConnection')
  @ApiOkResponse({ type: SsoConnectionDto })
  async verifyDomains(
    @CurrentPrincipal() principal: Principal,
    @Param('connection_id') id: string,
  ): Promise<SsoConnectionDto> {
    return toSsoConnectionDto(
      await this.connections.verifyDomains(principal, id),
      this.settings.publicUrl,
    );
  }

  private async answer(connection: SsoConnection): Promise<SsoConnectionDto> {
    const [withDomains] = await this.connections.withDomains([connection]);
    return toSsoConnectionDto(withDomains!, this.settings.publicUrl);
  }
}
