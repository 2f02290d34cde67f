import { Get, Header, Param, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AppError } from '#common';
import { AppSettings } from '#config';
import { samlEndpoints, serviceProviderMetadata, SsoConnectionsService } from '#sso';
import { ApiController } from '../http/api-controller.decorator.js';
import { Public } from '../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../http/error-envelope.dto.js';
import { ResourceParam } from '../http/resource-param.decorator.js';
import { SSO_CONNECTION_ID } from './sso-connection-id.js';

/** What an IdP administrator imports: public, as SAML metadata always is. */
@ApiTags('Enterprise SSO (v2)')
@ApiController({ path: 'sso/saml', version: VERSION_NEUTRAL })
export class SamlMetadataController {
  constructor(
    private readonly connections: SsoConnectionsService,
    private readonly settings: AppSettings,
  ) {}

  @Get(':connection_id/metadata')
  @Public()
  @Header('Content-Type', 'application/samlmetadata+xml; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: "A SAML connection's service-provider metadata",
    description:
      'Our entity id, the assertion consumer service (HTTP-POST) and this connection’s certificate, for signing and for encryption (IdPs may encrypt assertions to it); AuthnRequests are signed and responses or assertions must be. No credentials needed.',
  })
  @ResourceParam('connection_id', SSO_CONNECTION_ID.example, 'ssoConnection')
  @ApiOkResponse({
    description: 'SAML 2.0 metadata',
    content: { 'application/samlmetadata+xml': { schema: { type: 'string' } } },
  })
  @ApiResponse({
    status: 404,
    description: 'No SAML connection with this id',
    type: ErrorEnvelopeDto,
  })
  async metadata(@Param('connection_id') id: string): Promise<string> {
    const connection = await this.connections.findSaml(id);
    if (connection === null || connection.config.kind !== 'saml') {
      throw AppError.notFound('sso connection', id);
    }
    const sp = samlEndpoints(this.settings.publicUrl, id);
    return serviceProviderMetadata({
      entityId: sp.entityId,
      acsUrl: sp.acsUrl,
      signingCertificate: connection.config.spCertificate,
      encryptionCertificate: connection.config.spCertificate,
    });
  }
}
