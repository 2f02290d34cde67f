import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './stack.js';

/**
 * A TCP proxy in front of a real server (PostgreSQL, say) that a test can
 * cut — every open connection dropped and new ones refused, as when the
 * server goes away — and restore on the same port.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly upstream: { host: string; port: number },
  ) {}

  static async start(upstream: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), upstream);
    await proxy.restore();
    return proxy;
  }

  /** Accepts connections again and relays them upstream. */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.upstream.port, this.upstream.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Drops every connection and stops listening, so new ones are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}
