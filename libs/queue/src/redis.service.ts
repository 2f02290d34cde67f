import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { AppSettings } from '#config';
import { createRedisClient, type RedisClient } from './redis-connections.js';

/**
 * Fail commands fast while Redis is away instead of queueing them forever. Every
 * authenticated request counts itself here: commands issued in the same tick by
 * concurrent requests go out in one write (auto-pipelining), not one syscall each.
 */
const GENERAL_OPTIONS = { maxRetriesPerRequest: 2, enableAutoPipelining: true };

/** What a process does with a channel's messages (`RedisService.listen`). */
export interface ChannelListener {
  message(message: string): void;
  /**
   * The subscriber connection is (re)established: messages published while it
   * was down are lost, so whatever they would have invalidated is dropped here.
   */
  connected(): void;
}

/** The process's general-purpose Redis connection (counters, pub/sub publishing, health). */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  readonly client: RedisClient;
  /** BullMQ's connections on a cluster (see `queueConnection`), closed once the workers are. */
  private readonly queueConnections: RedisClient[] = [];
  /** The one subscriber connection `listen` shares between channels, made on first use. */
  private shared: RedisClient | null = null;
  private readonly listeners = new Map<string, ChannelListener[]>();

  constructor(private readonly settings: AppSettings) {
    this.client = createRedisClient(settings, GENERAL_OPTIONS);
    // Connection errors are retried by ioredis; health checks report them.
    this.client.on('error', () => undefined);
  }

  /** A separate connection in subscriber mode (a subscribed connection cannot run other commands). */
  subscriber(): RedisClient {
    const connection = createRedisClient(this.settings, GENERAL_OPTIONS);
    connection.on('error', () => undefined);
    return connection;
  }

  /**
   * Listens to `channel` on the process's shared subscriber connection (the
   * caches' invalidations: one connection for all of them, not one each).
   */
  async listen(channel: string, listener: ChannelListener): Promise<void> {
    if (this.shared === null) {
      const shared = this.subscriber();
      shared.on('message', (from: string, message: string) => {
        for (const each of this.listeners.get(from) ?? []) each.message(message);
      });
      shared.on('ready', () => {
        for (const each of [...this.listeners.values()].flat()) each.connected();
      });
      this.shared = shared;
    }
    const listeners = this.listeners.get(channel);
    if (listeners) listeners.push(listener);
    else this.listeners.set(channel, [listener]);
    await this.shared.subscribe(channel);
  }

  /**
   * A connection for one queue's BullMQ Queue and Worker on a Redis Cluster.
   * BullMQ accepts a cluster only as a client instance, which it treats as
   * shared and leaves open; this service closes it at shutdown, which Nest
   * runs after the workers have finished their jobs (this global module is
   * shut down last).
   */
  queueConnection(): RedisClient {
    // Commands of blocked-for-work workers wait for Redis to return, as BullMQ requires.
    const connection = createRedisClient(this.settings, { maxRetriesPerRequest: null });
    // BullMQ reports errors while it uses the connection; this keeps one after it stops listening.
    connection.on('error', () => undefined);
    this.queueConnections.push(connection);
    return connection;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      [this.client, ...this.queueConnections, ...(this.shared ? [this.shared] : [])].map(
        (connection) => connection.quit().catch(() => connection.disconnect()),
      ),
    );
  }
}
