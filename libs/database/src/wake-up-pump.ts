import { Logger } from '@nestjs/common';
import pg from 'pg';

export interface WakeUpPumpOptions {
  /** Names the pump in logs. */
  name: string;
  databaseUrl: string;
  /** The PostgreSQL channel whose NOTIFY wakes the pump (`pg_notify(channel, …)` at commit). */
  channel: string;
  /** One pass of work; returns how many milliseconds to wait before the next unprompted pass. */
  pass: () => Promise<number>;
  /** Wait after a failed pass. */
  retryMs: number;
}

/** How long to wait before opening a lost LISTEN connection again. */
const RECONNECT_MS = 1000;

/**
 * Runs passes of work one at a time, woken by a NOTIFY on a channel, by
 * `wake()`, or when the wait the last pass asked for is up. A wake during a
 * pass runs one more pass right after it, so nothing committed meanwhile
 * waits for the timer. A lost LISTEN connection is opened again; until then
 * the timer keeps the work going, only later.
 */
export class WakeUpPump {
  private readonly logger: Logger;
  private listener: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reconnect: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly options: WakeUpPumpOptions) {
    this.logger = new Logger(options.name);
  }

  /** Listens, and runs the first pass. */
  async start(): Promise<void> {
    await this.listen();
  }

  /** Runs a pass now, or right after the one in progress. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.options
      .pass()
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, 'pass failed; will retry');
        return this.options.retryMs;
      })
      .then((waitMs) => {
        this.running = null;
        if (this.again) {
          this.again = false;
          return this.wake();
        }
        this.schedule(waitMs);
      });
  }

  /** Stops waking, waits for the pass in progress, and closes the LISTEN connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.reconnect) clearTimeout(this.reconnect);
    await this.running;
    await this.listener?.end().catch(() => undefined);
  }

  /** Whether notifications reach the pump now (for tests and diagnostics). */
  get listening(): boolean {
    return this.listener !== null;
  }

  private schedule(waitMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), waitMs);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl });
    const lost = (error?: Error) => {
      if (this.listener !== client) return;
      this.listener = null;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ err: error }, 'LISTEN connection lost; opening it again');
      this.listenLater();
    };
    client.on('notification', () => this.wake());
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.options.channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    // Whatever was notified while no one listened is picked up now.
    this.wake();
  }

  private listenLater(): void {
    this.reconnect = setTimeout(() => {
      this.reconnect = null;
      this.listen().catch((error: unknown) => {
        if (this.stopped) return;
        this.logger.warn({ err: error }, 'LISTEN failed; trying again');
        this.listenLater();
      });
    }, RECONNECT_MS);
  }
}
