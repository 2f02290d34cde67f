import { Module } from '@nestjs/common';
import { SsoModule } from '#sso';
import { SamlAcsController } from './saml-acs.controller.js';
import { SamlMetadataController } from './saml-metadata.controller.js';
import { SsoConnectionsV2Controller } from './v2/sso-connections-v2.controller.js';

@Module({
  imports: [SsoModule],
  controllers: [SsoConnectionsV2Controller, SamlMetadataController, SamlAcsController],
})
export class SsoHttpModule {}
