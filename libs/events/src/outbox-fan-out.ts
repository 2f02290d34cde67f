import { Injectable } from '@nestjs/common';
import type { Transaction } from '#database';
import type { EventEntity } from './event.entity.js';

/**
 * Work that must commit together with marking events relayed (creating their
 * webhook deliveries), so it happens exactly once per event. Returns the
 * number of webhooks each event is pending for.
 */
export interface OutboxFanOut {
  fanOut(tx: Transaction, events: EventEntity[]): Promise<Map<string, number>>;
}

/**
 * The fan-outs the relay runs in its transaction. Features above the event
 * log register theirs when their module starts (as the work events start
 * registers with EventJobs), so the relay needs to know none of them.
 */
@Injectable()
export class OutboxFanOuts {
  private readonly fanOuts: OutboxFanOut[] = [];

  register(fanOut: OutboxFanOut): void {
    this.fanOuts.push(fanOut);
  }

  /** Runs every registered fan-out; an event's pending webhooks are summed over them. */
  async fanOut(tx: Transaction, events: EventEntity[]): Promise<Map<string, number>> {
    const pending = new Map<string, number>();
    for (const fanOut of this.fanOuts) {
      for (const [eventId, count] of await fanOut.fanOut(tx, events)) {
        pending.set(eventId, (pending.get(eventId) ?? 0) + count);
      }
    }
    return pending;
  }
}
