import { Module } from '@nestjs/common';
import { SsoModule } from '#sso';
import { SamlMetadataController } from './saml-metadata.controller.js';
import { SsoConnectionsV2Controller } from './v2/sso-connections-v2.controller.js';

@Module({
  imports: [SsoModule],
  controllers: [SsoConnectionsV2Controller, SamlMetadataController],
})
export class SsoHttpModule {}
