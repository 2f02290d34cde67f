import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { MODES, type Mode } from '#common';
import { AppSettings } from '#config';
import { eventsChannel, type RelayedEvent } from '#events';
import { RedisService, type RedisClient } from '#queue';

export type RelayedEventListener = (relayed: RelayedEvent) => void;

/**
 * The events the worker's outbox relay publishes on Redis, for this API
 * instance's WebSockets: one subscriber connection per instance, however many
 * gateways (live updates, `listen`) and sockets consume it. Delivery is at
 * most once: what is published while Redis or this subscription is away is
 * not seen here (webhooks and the event log have it).
 */
@Injectable()
export class RelayedEvents implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RelayedEvents.name);
  private readonly listeners: RelayedEventListener[] = [];
  private subscriber: RedisClient | null = null;

  constructor(
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
  ) {}

  /** Called with every well-formed relayed event, on this instance, in the order published. */
  onEvent(listener: RelayedEventListener): void {
    this.listeners.push(listener);
  }

  async onApplicationBootstrap(): Promise<void> {
    const subscriber = this.redis.subscriber();
    subscriber.on('message', (_channel: string, message: string) => this.dispatch(message));
    this.subscriber = subscriber;
    await this.listen(subscriber);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  private async listen(subscriber: RedisClient): Promise<void> {
    try {
      await subscriber.subscribe(eventsChannel(this.settings.redisPrefix));
    } catch (error) {
      // Redis is away: the API still serves HTTP; the sockets get events when it is back.
      this.logger.error({ err: error }, 'live sockets cannot subscribe to Redis; will retry');
      subscriber.once('ready', () => void this.listen(subscriber));
    }
  }

  private dispatch(text: string): void {
    const relayed = parseRelayedEvent(text);
    if (!relayed) {
      this.logger.warn('live sockets dropped a malformed events-channel message');
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(relayed);
      } catch (error) {
        this.logger.error({ err: error }, 'a relayed-event listener failed');
      }
    }
  }
}

/** A message of the events channel, or null when it is not shaped like one (it is then dropped). */
export function parseRelayedEvent(text: string): RelayedEvent | null {
  let value: Partial<RelayedEvent>;
  try {
    value = JSON.parse(text) as Partial<RelayedEvent>;
  } catch {
    return null;
  }
  const { organizationId, mode, event } = value ?? {};
  if (
    typeof organizationId !== 'string' ||
    !(MODES as readonly unknown[]).includes(mode) ||
    typeof event?.id !== 'string' ||
    typeof event.type !== 'string' ||
    typeof event.data !== 'object' ||
    event.data === null
  ) {
    return null;
  }
  return { organizationId, mode: mode as Mode, event };
}
