import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { AppError, missingScopes, type Principal, type ScopeName } from '#common';
import { CredentialResolver, UsersService, type CredentialHeaders } from '#auth';
import { AppSettings } from '#config';
import { REQUEST_ID_HEADER } from '../http/request-id.middleware.js';
import { limitHeaders, RequestLimiter, rateLimited } from '../http/request-limiter.js';
import { linkBaseOf, refuseLiveCredential, type SandboxMark } from '../http/sandbox.js';
import { ConnectionQuota, type ConnectionPlace } from './connection-quota.js';
import {
  handshakeCredentials,
  handshakeRequestId,
  isWebSocketUpgrade,
  refuseUpgrade,
  upgradeRequired,
} from './upgrade-handshake.js';

/** Frames larger than this close the connection (1009) before they are read. */
const MAX_PAYLOAD_BYTES = 64 * 1024;
/** A connection this far behind in reading what it is sent is dropped rather than buffered for. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** How long shutdown waits for clients to answer the close handshake. */
const CLOSE_HANDSHAKE_MS = 1_000;

export const CLOSE_GOING_AWAY = 1001;
/** Private-use close code: the credential expired or was revoked while connected. */
export const CLOSE_UNAUTHORIZED = 4401;
/** Private-use close code: the person lost the admin role while connected. */
export const CLOSE_FORBIDDEN = 4403;

/** One accepted WebSocket, whichever endpoint it is for. */
export interface LiveSocket {
  readonly socket: WebSocket;
  readonly principal: Principal;
  readonly requestId: string;
  /** Kept to re-check the credential at each heartbeat (expiry, revocation). */
  readonly credentials: CredentialHeaders;
  /** Its place among the organisation's connections; null when Redis could not count it. */
  readonly place: ConnectionPlace | null;
  alive: boolean;
  revalidating: boolean;
}

/**
 * A WebSocket path of the API. The handshake is the same for every one:
 * credential (as for HTTP) → `scopes` → a person needs the admin role →
 * `prepare` (the endpoint's own query parameters) → request limits → a place
 * among the organisation's connections; any refusal is an HTTP error answer.
 */
export interface LiveEndpoint<O> {
  readonly path: string;
  readonly scopes: readonly ScopeName[];
  /** The 403 for a person without the admin role (analysts and judges work blind). */
  blindMember(): AppError;
  /** The endpoint's options from the upgrade's query; throws an AppError (400) to refuse. */
  prepare(query: URLSearchParams, principal: Principal): O;
  /** The socket is open; the endpoint listens to its messages and its `close`. */
  open(connection: LiveSocket, options: O): void;
}

type UpgradeAwareServer = Server & { shouldUpgradeCallback: (request: IncomingMessage) => boolean };

/**
 * The WebSockets of the API: one `ws` server without a server of its own takes
 * the upgrades of the registered paths from the API's HTTP server,
 * authenticates them before accepting, and keeps every accepted socket alive
 * and honest — a ping each WS_HEARTBEAT_SECONDS (a socket that missed the
 * previous one is dropped), its place's lease renewed, and its credential and
 * the person's role checked again (4401, 4403). What flows on a socket is the
 * endpoint's business (SessionUpdatesGateway, EventListenGateway).
 */
@Injectable()
export class LiveSockets implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LiveSockets.name);
  private readonly server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PAYLOAD_BYTES,
    clientTracking: false,
  });
  private readonly endpoints = new Map<string, LiveEndpoint<unknown>>();
  private readonly open = new Set<LiveSocket>();
  private readonly requestIds = new WeakMap<IncomingMessage, string>();
  private heartbeat: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    private readonly credentials: CredentialResolver,
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

  /** Open sockets on this instance, every endpoint together. */
  get connectionCount(): number {
    return this.open.size;
  }

  register<O>(endpoint: LiveEndpoint<O>): void {
    this.endpoints.set(endpoint.path, endpoint as LiveEndpoint<unknown>);
  }

  /**
   * Express middleware: a request to a WebSocket path that reaches Express is
   * no WebSocket upgrade, and is answered so (426, upgradeRequired) rather than
   * by a route that would read the path's last segment as an id.
   */
  readonly refusePlainRequests = (request: Request, _response: Response, next: NextFunction) => {
    if (!this.endpoints.has(request.path)) return next();
    next(upgradeRequired(request.method, request.path));
  };

  /** Takes the WebSocket upgrades of the registered paths from the API's HTTP server. */
  attach(server: Server): void {
    // Once a server has an 'upgrade' listener, Node sends it every request that
    // carries `Upgrade:` (`h2c` ones too). Only WebSocket upgrades of our paths
    // leave Express; any other request, to any path, is answered as usual.
    (server as UpgradeAwareServer).shouldUpgradeCallback = (request) =>
      isWebSocketUpgrade(request, this.endpoints);
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.upgrade(request, socket, head);
    });
  }

  onApplicationBootstrap(): void {
    this.heartbeat = setInterval(() => this.beat(), this.settings.wsHeartbeatSeconds * 1000);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    const connections = [...this.open];
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
  }

  private async upgrade(
    request: IncomingMessage & SandboxMark,
    socket: Duplex,
    head: Buffer,
  ): Promise<void> {
    // The client may vanish while we authenticate; that must not become an uncaught error.
    const ignore = () => undefined;
    socket.on('error', ignore);
    const requestId = handshakeRequestId(request);
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const endpoint = this.endpoints.get(url.pathname);
      if (!endpoint) throw new AppError('NOT_FOUND', 'No WebSocket at this path');
      if (this.closing) throw shuttingDown();
      const credentials = handshakeCredentials(request);
      const principal = await this.credentials.resolve(credentials);
      refuseLiveCredential(request, principal, this.settings.publicUrl);
      const missing = missingScopes(principal.scopes, [...endpoint.scopes]);
      if (missing.length > 0) throw AppError.forbidden(missing);
      if (!(await this.mayWatchWork(principal))) throw endpoint.blindMember();
      const options = endpoint.prepare(url.searchParams, principal);
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
        const connection = this.accept(ws, principal, credentials, place, requestId);
        endpoint.open(connection, options);
        if (this.closing) ws.close(CLOSE_GOING_AWAY, 'server shutting down');
      });
    } catch (error) {
      if (!(error instanceof AppError)) {
        this.logger.error({ err: error, requestId }, 'WebSocket handshake failed');
      }
      const refusal =
        error instanceof AppError
          ? error
          : new AppError('INTERNAL_ERROR', 'An unexpected error occurred');
      const version2 = (request.url ?? '').startsWith('/v2/');
      const linkBase = linkBaseOf(request, this.settings.publicUrl);
      refuseUpgrade(socket, refusal, requestId, linkBase, version2);
    }
  }

  private accept(
    socket: WebSocket,
    principal: Principal,
    credentials: CredentialHeaders,
    place: ConnectionPlace | null,
    requestId: string,
  ): LiveSocket {
    const connection: LiveSocket = {
      socket,
      principal,
      requestId,
      credentials,
      place,
      alive: true,
      revalidating: false,
    };
    this.open.add(connection);
    socket.on('pong', () => (connection.alive = true));
    socket.on('close', () => {
      this.open.delete(connection);
      if (place) void this.quota.release(place);
    });
    // ws closes the connection after a protocol error (an oversized frame: 1009).
    socket.on('error', (error) =>
      this.logger.debug({ err: error, requestId }, 'WebSocket connection error'),
    );
    this.logger.debug(
      { requestId, organizationId: principal.organizationId, mode: principal.mode },
      'WebSocket connection opened',
    );
    return connection;
  }

  /** Pings every socket; one that did not answer the previous ping is dropped. */
  private beat(): void {
    for (const connection of this.open) {
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
  private async revalidate(connection: LiveSocket): Promise<void> {
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
        this.logger.warn({ err: error }, 'WebSocket could not re-check a credential');
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
}

/** Sends a frame (an object as JSON, or JSON text) if the socket is still open. */
export function sendFrame(connection: LiveSocket, message: object | string): void {
  if (connection.socket.readyState !== WebSocket.OPEN) return;
  connection.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
}

/**
 * Sends a pushed frame, or drops the connection when it stopped reading: a
 * slow reader must not make the instance buffer without end.
 */
export function pushFrame(connection: LiveSocket, frame: string, logger: Logger): void {
  if (connection.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
    logger.warn('dropped a WebSocket connection that stopped reading');
    connection.socket.terminate();
    return;
  }
  sendFrame(connection, frame);
}

export function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function shuttingDown(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down; connect again');
}
