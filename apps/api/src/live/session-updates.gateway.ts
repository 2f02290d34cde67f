import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Redis } from 'ioredis';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { AppError, missingScopes, Scope, type Principal } from '#common';
import { CredentialResolver, type CredentialHeaders } from '#auth';
import { AppSettings } from '#config';
import { eventsChannel } from '#events';
import { RedisService } from '#queue';
import { phaseOf, SessionsService } from '#sessions';
import { REQUEST_ID_HEADER } from '../http/request-id.middleware.js';
import { limitHeaders, RequestLimiter, rateLimited } from '../http/request-limiter.js';
import { ConnectionQuota, type ConnectionPlace } from './connection-quota.js';
import {
  ALL_SESSIONS,
  errorMessage,
  parseClientMessage,
  parseRelayedEvent,
  toSessionUpdate,
  type ServerMessage,
} from './session-update-messages.js';
import {
  MAX_SUBSCRIPTIONS_PER_CONNECTION,
  SubscriptionIndex,
  tenantKey,
} from './subscription-index.js';
import {
  handshakeCredentials,
  handshakeRequestId,
  isLiveUpdatesUpgrade,
  refuseUpgrade,
} from './upgrade-handshake.js';

/** Frames larger than this close the connection (1009) before they are read. */
const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Messages of one connection waiting to be handled; beyond this new ones are refused. */
const MAX_IN_FLIGHT = 16;
/** A connection this far behind in reading its updates is dropped rather than buffered for. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** How long shutdown waits for clients to answer the close handshake. */
const CLOSE_HANDSHAKE_MS = 1_000;

export const CLOSE_GOING_AWAY = 1001;
/** Private-use close code: the credential expired or was revoked while connected. */
export const CLOSE_UNAUTHORIZED = 4401;

interface LiveConnection {
  readonly socket: WebSocket;
  readonly principal: Principal;
  /** Kept to re-check the credential at each heartbeat (expiry, revocation). */
  readonly credentials: CredentialHeaders;
  /** Its place among the organisation's connections; null when Redis could not count it. */
  readonly place: ConnectionPlace | null;
  alive: boolean;
  revalidating: boolean;
  inFlight: number;
  /** The connection's messages are handled one after another, in order. */
  queue: Promise<void>;
}

type UpgradeAwareServer = Server & { shouldUpgradeCallback: (request: IncomingMessage) => boolean };

/**
 * Live session updates at /v1/sessions/ws. A `ws` server without a server of
 * its own takes the upgrades of that one path from the API's HTTP server,
 * authenticates them before accepting, and fans out the session events the
 * worker's relay publishes on Redis: one subscriber connection per instance,
 * routed through an index keyed by organisation and mode.
 */
@Injectable()
export class SessionUpdatesGateway implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SessionUpdatesGateway.name);
  private readonly server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PAYLOAD_BYTES,
    clientTracking: false,
  });
  private readonly index = new SubscriptionIndex<LiveConnection>();
  private readonly requestIds = new WeakMap<IncomingMessage, string>();
  private subscriber: Redis | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    private readonly credentials: CredentialResolver,
    private readonly sessions: SessionsService,
    private readonly redis: RedisService,
    private readonly limiter: RequestLimiter,
    private readonly quota: ConnectionQuota,
    private readonly settings: AppSettings,
  ) {
    this.server.on('headers', (headers, request) => {
      const requestId = this.requestIds.get(request);
      if (requestId) headers.push(`${REQUEST_ID_HEADER}: ${requestId}`);
    });
  }

  /** Open connections on this instance (for tests and diagnostics). */
  get connectionCount(): number {
    return this.index.connectionCount;
  }

  /** Subscriptions held by this instance's connections. */
  get subscriptionCount(): number {
    return this.index.subscriptionCount;
  }

  /** Takes the live-update upgrades of the API's HTTP server. */
  attach(server: Server): void {
    // Once a server has an 'upgrade' listener, Node sends it every request that
    // carries `Upgrade:` (`h2c` ones too). Only WebSocket upgrades of our path
    // leave Express; any other request, to any path, is answered as usual.
    (server as UpgradeAwareServer).shouldUpgradeCallback = isLiveUpdatesUpgrade;
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.upgrade(request, socket, head);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.heartbeat = setInterval(() => this.beat(), this.settings.wsHeartbeatSeconds * 1000);
    const subscriber = this.redis.subscriber();
    subscriber.on('message', (_channel: string, message: string) => this.deliver(message));
    this.subscriber = subscriber;
    await this.listen(subscriber);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    const connections = [...this.index.connections()];
    const closed = connections.map(
      ({ socket }) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve();
          socket.once('close', () => resolve());
          socket.close(CLOSE_GOING_AWAY, 'server shutting down');
        }),
    );
    await Promise.race([Promise.all(closed), sleep(CLOSE_HANDSHAKE_MS, undefined, { ref: false })]);
    for (const { socket } of connections) socket.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  private async listen(subscriber: Redis): Promise<void> {
    try {
      await subscriber.subscribe(eventsChannel(this.settings.redisPrefix));
    } catch (error) {
      // Redis is away: the API still serves HTTP; live updates start when it is back.
      this.logger.error({ err: error }, 'live updates cannot subscribe to Redis; will retry');
      subscriber.once('ready', () => void this.listen(subscriber));
    }
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // The client may vanish while we authenticate; that must not become an uncaught error.
    const ignore = () => undefined;
    socket.on('error', ignore);
    const requestId = handshakeRequestId(request);
    try {
      if (this.closing) throw shuttingDown();
      const credentials = handshakeCredentials(request);
      const principal = await this.credentials.resolve(credentials);
      const missing = missingScopes(principal.scopes, [Scope.SessionsRead]);
      if (missing.length > 0) throw AppError.forbidden(missing);
      if (this.closing) throw shuttingDown();
      const verdict = await this.limiter.check(principal, requestId);
      if (verdict?.exceeded) throw rateLimited(verdict.exceeded, limitHeaders(verdict));
      const place = await this.quota.acquire(principal);
      // The client may have gone while we counted: its place is given back at once.
      if (!socket.writable) {
        if (place) await this.quota.release(place);
        socket.destroy();
        return;
      }
      this.requestIds.set(request, requestId);
      this.server.handleUpgrade(request, socket, head, (ws) => {
        socket.off('error', ignore);
        this.accept(ws, principal, credentials, place, requestId);
      });
    } catch (error) {
      if (!(error instanceof AppError)) {
        this.logger.error({ err: error, requestId }, 'live updates handshake failed');
      }
      const refusal =
        error instanceof AppError
          ? error
          : new AppError('INTERNAL_ERROR', 'An unexpected error occurred');
      refuseUpgrade(socket, refusal, requestId, this.settings.publicUrl);
    }
  }

  private accept(
    socket: WebSocket,
    principal: Principal,
    credentials: CredentialHeaders,
    place: ConnectionPlace | null,
    requestId: string,
  ): void {
    const connection: LiveConnection = {
      socket,
      principal,
      credentials,
      place,
      alive: true,
      revalidating: false,
      inFlight: 0,
      queue: Promise.resolve(),
    };
    this.index.register(connection, tenantKey(principal));
    socket.on('pong', () => (connection.alive = true));
    socket.on('message', (data, isBinary) => this.receive(connection, data, isBinary));
    socket.on('close', () => {
      this.index.unregister(connection);
      if (place) void this.quota.release(place);
    });
    // ws closes the connection after a protocol error (an oversized frame: 1009).
    socket.on('error', (error) =>
      this.logger.debug({ err: error, requestId }, 'live updates connection error'),
    );
    this.logger.debug(
      { requestId, organizationId: principal.organizationId, mode: principal.mode },
      'live updates connection opened',
    );
    if (this.closing) socket.close(CLOSE_GOING_AWAY, 'server shutting down');
  }

  private receive(connection: LiveConnection, data: RawData, isBinary: boolean): void {
    if (connection.inFlight >= MAX_IN_FLIGHT) {
      this.send(
        connection,
        errorMessage('RATE_LIMITED', 'Too many messages in flight; wait for the replies'),
      );
      return;
    }
    connection.inFlight += 1;
    connection.queue = connection.queue
      .then(() => this.handle(connection, data, isBinary))
      .catch((error: unknown) => {
        this.logger.error({ err: error }, 'live updates message failed');
        this.send(connection, errorMessage('INTERNAL_ERROR', 'An unexpected error occurred'));
      })
      .finally(() => (connection.inFlight -= 1));
  }

  private async handle(connection: LiveConnection, data: RawData, isBinary: boolean) {
    if (isBinary) {
      this.send(
        connection,
        errorMessage('INVALID_REQUEST', 'Binary frames are not supported; send JSON text'),
      );
      return;
    }
    const command = parseClientMessage(textOf(data));
    if (!('sessionId' in command)) {
      this.send(connection, command);
    } else if (command.type === 'unsubscribe') {
      this.index.remove(connection, command.sessionId);
      this.send(connection, { type: 'unsubscribed', session_id: command.sessionId });
    } else {
      await this.subscribe(connection, command.sessionId);
    }
  }

  private async subscribe(connection: LiveConnection, sessionId: string): Promise<void> {
    // Indexed before the look-up, so no update published meanwhile is missed. That
    // leaks nothing: updates are routed within the caller's organisation and mode only.
    const outcome = this.index.add(connection, sessionId);
    if (outcome === 'closed') return;
    if (outcome === 'limit') {
      this.send(
        connection,
        errorMessage(
          'INVALID_REQUEST',
          `At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection; unsubscribe from one or use "${ALL_SESSIONS}"`,
          sessionId,
        ),
      );
      return;
    }
    if (sessionId === ALL_SESSIONS) {
      this.send(connection, { type: 'subscribed', session_id: sessionId });
      return;
    }
    try {
      const session = await this.sessions.get(connection.principal, sessionId);
      this.send(connection, {
        type: 'subscribed',
        session_id: sessionId,
        status: session.status,
        progress: session.progress,
        current_phase: phaseOf(session),
        sequence: session.eventSequence,
      });
    } catch (error) {
      if (outcome === 'added') this.index.remove(connection, sessionId);
      if (!(error instanceof AppError)) throw error;
      this.send(connection, errorMessage(error.code, error.message, sessionId));
    }
  }

  /** One message of the events channel → the subscribed sockets of its organisation and mode. */
  private deliver(text: string): void {
    const relayed = parseRelayedEvent(text);
    if (!relayed) {
      this.logger.warn('live updates dropped a malformed events-channel message');
      return;
    }
    const update = toSessionUpdate(relayed.event);
    if (!update) return;
    const recipients = this.index.recipients(tenantKey(relayed), update.session_id);
    if (recipients.size === 0) return;
    const frame = JSON.stringify(update);
    for (const connection of recipients) {
      if (connection.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        this.logger.warn('live updates dropped a connection that stopped reading');
        connection.socket.terminate();
        continue;
      }
      this.send(connection, frame);
    }
  }

  /** Pings every socket; one that did not answer the previous ping is dropped. */
  private beat(): void {
    for (const connection of this.index.connections()) {
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
      if (connection.place) void this.quota.renew(connection.place);
      void this.revalidate(connection);
    }
  }

  /** A socket outlives neither its access token nor a revoked key. */
  private async revalidate(connection: LiveConnection): Promise<void> {
    if (connection.revalidating) return;
    connection.revalidating = true;
    try {
      await this.credentials.resolve(connection.credentials);
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED') {
        connection.socket.close(CLOSE_UNAUTHORIZED, 'credential expired or revoked');
      } else {
        // An outage of the key store must not drop every connection; try again next beat.
        this.logger.warn({ err: error }, 'live updates could not re-check a credential');
      }
    } finally {
      connection.revalidating = false;
    }
  }

  private send(connection: LiveConnection, message: ServerMessage | string): void {
    if (connection.socket.readyState !== WebSocket.OPEN) return;
    connection.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }
}

function shuttingDown(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down; connect again');
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
