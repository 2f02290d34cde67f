import { Logger } from '@nestjs/common';
import { toPublicId } from '#common';
import type { ClaimedDelivery } from './delivery-claims.js';
import type { DeliveryOutcomes, DeliveryResult } from './delivery-outcomes.js';

export type { DeliveryResult } from './delivery-outcomes.js';

/** Most outcomes one batch writes. */
const MAX_BATCH = 500;

/**
 * Writes the outcomes of delivery attempts together, whatever ended while the
 * previous batch was being written going in the next (DeliveryOutcomes: one
 * transaction per batch, with the events' pending counts and what an outcome
 * does to its webhook). A busy worker makes a few round trips per batch
 * instead of five per delivery; an idle one writes each outcome at once.
 * Until its outcome is written a delivery stays leased, so a crash before
 * that sends it again (at least once).
 *
 * The same write hands each freed slot over: for every outcome it leases the
 * next due delivery of the same endpoint (none of a replay's, which go one at
 * a time through the claim). An endpoint's leases are never more than before,
 * so its cap holds across workers without the claim's lock, and a busy
 * endpoint's next delivery starts with the write that ended the last one
 * instead of after a claim.
 */
export class AttemptRecords {
  private readonly logger = new Logger(AttemptRecords.name);
  private queue: DeliveryResult[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly outcomes: DeliveryOutcomes,
    /**
     * After each batch, written or not (a failed one's leases expire and they are sent again),
     * with the deliveries leased in their place, to be sent.
     */
    private readonly written: (results: DeliveryResult[], handedOver: ClaimedDelivery[]) => void,
    /** Whether freed slots are handed over now (not while the worker stops). */
    private readonly handingOver: () => boolean = () => true,
  ) {}

  record(result: DeliveryResult): void {
    this.queue.push(result);
    this.writing ??= this.writeAll();
  }

  /** Resolves once everything recorded so far is written (or has failed). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    try {
      // Lets the answers read in the same turn of the event loop join the first batch.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        const handedOver = await this.writeBatch(batch).catch(async (error: unknown) => {
          if (batch.length === 1) return this.failed(batch, error);
          // One outcome the batch could not take (or a deadlock with another worker) must not
          // hold the others back: each is written on its own.
          this.logger.warn({ err: error }, 'writing delivery outcomes failed; one by one');
          const each: ClaimedDelivery[] = [];
          for (const result of batch) {
            each.push(
              ...(await this.writeBatch([result]).catch((alone: unknown) =>
                this.failed([result], alone),
              )),
            );
          }
          return each;
        });
        this.written(batch, handedOver);
      }
    } finally {
      this.writing = null;
    }
  }

  private failed(results: DeliveryResult[], error: unknown): ClaimedDelivery[] {
    this.logger.error(
      { err: error, deliveries: results.map((r) => toPublicId('webhookDelivery', r.delivery.id)) },
      'recording a webhook delivery failed; its lease will expire and it will be sent again',
    );
    return [];
  }

  private writeBatch(results: DeliveryResult[]): Promise<ClaimedDelivery[]> {
    return this.outcomes.write(results, this.handingOver());
  }
}
