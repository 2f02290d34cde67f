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
import { AnalysesService, currentStepOf, progressOf } from '#analyses';
import { AppError, missingScopes, Scope, type Principal } from '#common';
import { CredentialResolver, UsersService, type CredentialHeaders } from '#auth';
import { AppSettings } from '#config';
import { eventsChannel } from '#events';
import { RedisService } from '#queue';
import { phaseOf, SessionsService } from '#sessions';
import { REQUEST_ID_HEADER } from '../http/request-id.middleware.js';
import { limitHeaders, RequestLimiter, rateLimited } from '../http/request-limiter.js';
import { ConnectionQuota, type ConnectionPlace } from './connection-quota.js';
import {
  ALL,
  errorMessage,
  parseClientMessage,
  parseRelayedEvent,
  subscribedMessage,
  toLiveUpdate,
  topicOf,
  unsubscribedMessage,
  type ServerMessage,
  type Topic,
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
/** Private-use close code: the person lost the admin role while connected. */
export const CLOSE_FORBIDDEN = 4403;

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
 * Live session and analysis updates at /v1/sessions/ws. A `ws` server without
 * a server of its own takes the upgrades of that one path from the API's HTTP
 * server, authenticates them before accepting (`remote-viewing:read`, which
 * reads analyses too), and fans out the events the worker's relay publishes
 * on Redis: one subscriber connection per instance, routed through an index
 * keyed by organisation and mode, then by kind and id.
 *
 * The protocol (JSON text frames; session-update-messages.ts):
 * - client → server: `{"type":"subscribe"|"unsubscribe", "session_id": "sess_…"|"*"}`
 *   or the same with `"analysis_id": "anal_…"|"*"` — exactly one of the two.
 *   `*` is every session, or every analysis, of the caller's organisation and
 *   mode; a session `*` never carries analyses, nor the other way round.
 * - replies: `subscribed` {session_id, status, progress, current_phase, sequence}
 *   or {analysis_id, status, progress, current_step, sequence} — the snapshot,
 *   absent for `*`; `unsubscribed` {session_id | analysis_id}; `error`
 *   {error: {code, message}, and the session_id or analysis_id it concerns}
 *   (NOT_FOUND for an unknown or another tenant's resource, INVALID_REQUEST
 *   for a malformed message or past the cap of subscriptions per connection).
 * - updates, each with `sequence` (higher than the snapshot's) and `event_id`:
 *   `session.progress` {session_id, progress, current_phase},
 *   `session.completed` {session_id, results, confidence_score, completed_at},
 *   `session.error` {session_id, error: {code, message}, failed_at},
 *   `analysis.started` {analysis_id, started_at},
 *   `analysis.progress` {analysis_id, progress, current_step},
 *   `analysis.completed` {analysis_id, confidence_score, results, processing_time, completed_at},
 *   `analysis.error` {analysis_id, error: {code, message}, failed_at}.
 *
 * Updates carry results, and results name targets: a person signed in
 * without the `admin` role (an analyst or a judge, who work blind) is refused
 * at the handshake (403), and a connected person who loses the role is
 * closed (4403) at the next heartbeat.
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
    private readonly analyses: AnalysesService,
    private readonly redis: RedisService,
    private readonly limiter: RequestLimiter,
    private readonly quota: ConnectionQuota,
    private readonly settings: AppSettings,
    private readonly users: UsersService,
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
      if (!(await this.mayWatchWork(principal))) throw blindMember();
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
    if (command.type === 'error') {
      this.send(connection, command);
      return;
    }
    const topic = topicOf(command);
    if (command.type === 'unsubscribe') {
      this.index.remove(connection, topic.kind, topic.id);
      this.send(connection, unsubscribedMessage(topic));
    } else {
      await this.subscribe(connection, topic);
    }
  }

  private async subscribe(connection: LiveConnection, topic: Topic): Promise<void> {
    // Indexed before the look-up, so no update published meanwhile is missed. That
    // leaks nothing: updates are routed within the caller's organisation and mode only.
    const outcome = this.index.add(connection, topic.kind, topic.id);
    if (outcome === 'closed') return;
    if (outcome === 'limit') {
      this.send(
        connection,
        errorMessage(
          'INVALID_REQUEST',
          `At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection; unsubscribe from one or use "${ALL}"`,
          topic,
        ),
      );
      return;
    }
    if (topic.id === ALL) {
      this.send(connection, subscribedMessage(topic));
      return;
    }
    try {
      this.send(connection, await this.snapshot(connection.principal, topic));
    } catch (error) {
      if (outcome === 'added') this.index.remove(connection, topic.kind, topic.id);
      if (!(error instanceof AppError)) throw error;
      this.send(connection, errorMessage(error.code, error.message, topic));
    }
  }

  /** The `subscribed` reply with where the session or analysis stands; NOT_FOUND for another tenant's. */
  private async snapshot(principal: Principal, topic: Topic): Promise<ServerMessage> {
    if (topic.kind === 'session') {
      const session = await this.sessions.get(principal, topic.id);
      return {
        type: 'subscribed',
        session_id: topic.id,
        status: session.status,
        progress: session.progress,
        current_phase: phaseOf(session),
        sequence: session.eventSequence,
      };
    }
    const analysis = await this.analyses.get(principal, topic.id);
    return {
      type: 'subscribed',
      analysis_id: topic.id,
      status: analysis.status,
      progress: progressOf(analysis),
      current_step: currentStepOf(analysis),
      sequence: analysis.eventSequence,
    };
  }

  /** One message of the events channel → the subscribed sockets of its organisation and mode. */
  private deliver(text: string): void {
    const relayed = parseRelayedEvent(text);
    if (!relayed) {
      this.logger.warn('live updates dropped a malformed events-channel message');
      return;
    }
    const live = toLiveUpdate(relayed.event);
    if (!live) return;
    const { topic, update } = live;
    const recipients = this.index.recipients(tenantKey(relayed), topic.kind, topic.id);
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
      if (!(await this.mayWatchWork(connection.principal))) {
        connection.socket.close(CLOSE_FORBIDDEN, 'analysts and judges cannot watch work');
      }
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

  /**
   * Clients and API keys watch their organisation's work; a person does only
   * with the `admin` role (read afresh: a role taken away counts at once). A
   * disabled person's token is UNAUTHORIZED.
   */
  private async mayWatchWork(principal: Principal): Promise<boolean> {
    const member = await this.users.memberOf(principal);
    return member === null || member.roles.includes('admin');
  }

  private send(connection: LiveConnection, message: ServerMessage | string): void {
    if (connection.socket.readyState !== WebSocket.OPEN) return;
    connection.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }
}

/** Analysts and judges are blind: live updates carry results and would show them the targets. */
function blindMember(): AppError {
  return new AppError('FORBIDDEN', 'Analysts and judges cannot subscribe to work updates', {
    issue:
      'live updates carry results; this needs the admin role (analysts and judges use /v2/assignments and /v2/judging-tasks)',
  });
}

function shuttingDown(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down; connect again');
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
