import type { Client } from 'ldapts';
import { closeQuietly } from './ldap-connection.js';
import { LdapSignInError } from './ldap-errors.js';

/**
 * A few connections bound as the service account, each lent to one operation at a
 * time. A connection whose operation failed is closed, never lent again (it may be
 * half-dead or, after a timeout, already destroyed by ldapts). Users never bind on
 * these: a user's bind gets a fresh connection of its own.
 */
export class ServiceConnectionPool {
  private readonly idle: Client[] = [];
  private readonly waiting: ((client: Client | null) => void)[] = [];
  private open = 0;
  private closed = false;

  constructor(
    private readonly connect: () => Promise<Client>,
    private readonly size = 4,
  ) {}

  /**
   * Runs `work` on a service-bound connection, then returns it to the pool (or drops it
   * on error). An idle connection the directory closed unnoticed (Active Directory drops
   * idle ones after 15 minutes) gets one retry on a fresh connection.
   */
  async use<T>(work: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { client, reused } = await this.acquire();
      let result: T;
      try {
        result = await work(client);
      } catch (error) {
        this.discard(client);
        if (reused && attempt === 1 && isLostConnection(error)) continue;
        throw error;
      }
      this.release(client);
      return result;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const resolve of this.waiting.splice(0)) resolve(null);
    await Promise.all(this.idle.splice(0).map((client) => closeQuietly(client)));
  }

  private async acquire(): Promise<{ client: Client; reused: boolean }> {
    for (;;) {
      if (this.closed)
        throw new LdapSignInError('directory_unavailable', 'the directory is closed');
      const idle = this.idle.pop();
      if (idle !== undefined) {
        if (idle.isBound) return { client: idle, reused: true };
        this.discard(idle); // the server closed it while idle
        continue;
      }
      if (this.open < this.size) {
        this.open++;
        try {
          return { client: await this.connect(), reused: false };
        } catch (error) {
          this.open--;
          this.wakeOne(null);
          throw error;
        }
      }
      const handedOver = await new Promise<Client | null>((resolve) => this.waiting.push(resolve));
      if (handedOver !== null) return { client: handedOver, reused: true };
    }
  }

  private release(client: Client): void {
    if (this.closed) {
      this.discard(client);
      return;
    }
    const next = this.waiting.shift();
    if (next !== undefined) next(client);
    else this.idle.push(client);
  }

  private discard(client: Client): void {
    this.open--;
    void closeQuietly(client);
    // A waiter may now open a connection of its own.
    this.wakeOne(null);
  }

  private wakeOne(client: Client | null): void {
    this.waiting.shift()?.(client);
  }
}

/** The socket went away under the operation (as ldapts and our one-socket guard say it). */
function isLostConnection(error: unknown): boolean {
  return (
    error instanceof Error &&
    /connection was lost|Connection closed|Socket error|ECONNRESET|EPIPE/.test(error.message)
  );
}
