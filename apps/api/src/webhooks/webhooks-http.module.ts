import { Module } from '@nestjs/common';
import { WebhooksModule } from '#webhooks';
import { WebhooksV1Controller } from './v1/webhooks-v1.controller.js';
import { WebhooksV2Controller } from './v2/webhooks-v2.controller.js';

@Module({
  imports: [WebhooksModule],
  controllers: [WebhooksV1Controller, WebhooksV2Controller],
})
export class WebhooksHttpModule {}
