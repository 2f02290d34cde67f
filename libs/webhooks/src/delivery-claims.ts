import { Injectable } from '@nestjs/common';
import { EventsRepository, type EventEntity } from '#events';
import { DeliveryLeasesRepository, type LeasedDelivery } from './delivery-leases.repository.js';

export { LEASE_SECONDS, type ClaimedWebhook } from './delivery-leases.repository.js';

/** A leased delivery with what sending it needs: its webhook and its event. */
export interface ClaimedDelivery extends LeasedDelivery {
  /** Null when retention deleted it since the delivery was created. */
  event: EventEntity | null;
}

export interface Claim {
  deliveries: ClaimedDelivery[];
  /** Due deliveries left unclaimed (over the capacity, an endpoint's cap, a replay's order). */
  heldBack: boolean;
  /** When the next delivery not due yet will be, or null when none is scheduled. */
  nextDue: Date | null;
}

/**
 * Leases due deliveries for this worker (DeliveryLeasesRepository: one
 * round trip under the claim lock), then reads their events in one batch:
 * at most two round trips per claim, one when nothing is due.
 */
@Injectable()
export class DeliveryClaims {
  constructor(
    private readonly leases: DeliveryLeasesRepository,
    private readonly events: EventsRepository,
  ) {}

  /** Up to `limit` due deliveries, at most `endpointConcurrency` in flight per endpoint. */
  async claim(endpointConcurrency: number, limit: number): Promise<Claim> {
    const lease = await this.leases.claimDueAcrossTenants(endpointConcurrency, limit);
    const events =
      lease.deliveries.length === 0
        ? []
        : await this.events.findManyAcrossTenants(
            lease.deliveries.map((delivery) => delivery.eventId),
          );
    const deliveries = withEvents(lease.deliveries, events);
    return { deliveries, heldBack: lease.due > deliveries.length, nextDue: lease.nextDue };
  }
}

/** Each delivery with its event among `events` (null when it is not there: deleted). */
export function withEvents(leased: LeasedDelivery[], events: EventEntity[]): ClaimedDelivery[] {
  const byId = new Map(events.map((event) => [event.id, event]));
  return leased.map((delivery) => ({ ...delivery, event: byId.get(delivery.eventId) ?? null }));
}
