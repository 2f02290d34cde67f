import type { DeliveryState } from '#webhooks';
import type { RequestExamples } from '../../http/request-examples.js';
import { V1List, V1ListQueryDto } from '../../http/v1-list.dto.js';
import { CreateWebhookDto, DeliveryDto, DeliveryStateFilter, WebhookDto } from '../webhook.dto.js';

export const REPLACE_WEBHOOK_EXAMPLES: RequestExamples = {
  everything: {
    summary: 'Every event, in the short version 1 envelope',
    value: {
      url: 'https://example.com/hooks/sas',
      events: ['*'],
      active: true,
      envelope_format: 'v1',
    },
  },
};

/** Version 1 PUT: the whole webhook; fields left out take their defaults, the secret is kept unless given. */
export class ReplaceWebhookDto extends CreateWebhookDto {}

export class WebhookListDto extends V1List(WebhookDto) {}
export class DeliveryListDto extends V1List(DeliveryDto) {}

export class DeliveryListQueryDto extends V1ListQueryDto {
  @DeliveryStateFilter()
  state?: DeliveryState;
}
