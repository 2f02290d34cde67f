import { Module } from '@nestjs/common';
import { ScimModule, ScimTokensModule } from '#scim';
import { ScimController } from './scim.controller.js';
import { ScimTokensV2Controller } from './v2/scim-tokens-v2.controller.js';

/** SCIM: the organisation's tokens (v2 API) and the SCIM service provider itself (/scim/v2). */
@Module({
  imports: [ScimTokensModule, ScimModule],
  controllers: [ScimTokensV2Controller, ScimController],
})
export class ScimHttpModule {}
