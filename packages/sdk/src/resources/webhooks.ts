import type * as Api from '../generated/types.gen.js';
import type { BodyOf, FiltersOf, QueryOf, ResultOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource, segment } from './resource.js';

export type WebhookEndpoint = ResultOf<Api.WebhooksV2ControllerGetV2Responses>;
export type CreateWebhookEndpoint = BodyOf<Api.WebhooksV2ControllerCreateV2Data>;
export type WebhookDelivery = ResultOf<Api.WebhooksV2ControllerGetDeliveryV2Responses>;
export type DeliveryFilters = FiltersOf<Api.WebhooksV2ControllerDeliveriesV2Data, 'cursor'>;

/** Webhook endpoints and their deliveries (version 2). */
export class Webhooks extends Resource {
  /** `POST /v2/webhooks`: the answer shows the signing secret once. */
  create(
    body: CreateWebhookEndpoint,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.WebhooksV2ControllerCreateV2Responses>> {
    return this.call({ method: 'POST', path: '/v2/webhooks', body }, options);
  }

  get(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call({ method: 'GET', path: `/v2/webhooks/${segment(id)}` }, options);
  }

  /** Every endpoint (`GET /v2/webhooks`). */
  list(options?: RequestOptions): CursorList<WebhookEndpoint> {
    return cursorList((cursor) =>
      this.call({ method: 'GET', path: '/v2/webhooks', query: { cursor } }, options),
    );
  }

  update(
    id: string,
    body: BodyOf<Api.WebhooksV2ControllerUpdateV2Data>,
    options?: RequestOptions,
  ): Promise<WebhookEndpoint> {
    return this.call({ method: 'PATCH', path: `/v2/webhooks/${segment(id)}`, body }, options);
  }

  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: `/v2/webhooks/${segment(id)}` }, options);
  }

  /** `POST /v2/webhooks/{id}/test`: one sample event to this endpoint only. */
  test(
    id: string,
    body: BodyOf<Api.WebhooksV2ControllerTestV2Data> = {},
    options?: RequestOptions,
  ): Promise<ResultOf<Api.WebhooksV2ControllerTestV2Responses>> {
    return this.call({ method: 'POST', path: `/v2/webhooks/${segment(id)}/test`, body }, options);
  }

  /** `POST /v2/webhooks/{id}/rotate-secret`: the new secret, the old one kept for the overlap. */
  rotateSecret(
    id: string,
    body: BodyOf<Api.WebhooksV2ControllerRotateSecretV2Data> = {},
    options?: RequestOptions,
  ): Promise<ResultOf<Api.WebhooksV2ControllerRotateSecretV2Responses>> {
    return this.call(
      { method: 'POST', path: `/v2/webhooks/${segment(id)}/rotate-secret`, body },
      options,
    );
  }

  /** Every delivery to the endpoint, with its attempts, newest first. */
  deliveries(
    id: string,
    filters: DeliveryFilters = {},
    options?: RequestOptions,
  ): CursorList<WebhookDelivery> {
    return cursorList((cursor) =>
      this.call(
        {
          method: 'GET',
          path: `/v2/webhooks/${segment(id)}/deliveries`,
          query: { ...filters, cursor },
        },
        options,
      ),
    );
  }

  /** `POST /v2/webhooks/{id}/deliveries/{delivery_id}/retry`: one more attempt now. */
  retryDelivery(
    id: string,
    deliveryId: string,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.WebhooksV2ControllerRetryDeliveryV2Responses>> {
    return this.call(
      {
        method: 'POST',
        path: `/v2/webhooks/${segment(id)}/deliveries/${segment(deliveryId)}/retry`,
      },
      options,
    );
  }

  /**
   * `GET /v2/webhooks/events/replay` (a GET, as the API's contract has it): the
   * events of a range sent again to one endpoint; `dry_run` only counts them.
   */
  replay(
    range: QueryOf<Api.WebhooksV2ControllerReplayV2Data>,
    options?: RequestOptions,
  ): Promise<ResultOf<Api.WebhooksV2ControllerReplayV2Responses>> {
    return this.call({ method: 'GET', path: '/v2/webhooks/events/replay', query: range }, options);
  }
}
