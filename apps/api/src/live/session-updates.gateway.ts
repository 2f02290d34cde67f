import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { RawData } from 'ws';
import { AnalysesService, currentStepOf, progressOf } from '#analyses';
import { AppError, Scope, type Principal } from '#common';
import type { RelayedEvent } from '#events';
import { phaseOf, SessionsService } from '#sessions';
import { LiveSockets, pushFrame, sendFrame, textOf, type LiveSocket } from './live-sockets.js';
import { RelayedEvents } from './relayed-events.js';
import {
  ALL,
  errorMessage,
  parseClientMessage,
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

export const LIVE_UPDATES_PATH = '/v1/sessions/ws';
/** Messages of one connection waiting to be handled; beyond this new ones are refused. */
const MAX_IN_FLIGHT = 16;

interface LiveConnection {
  readonly live: LiveSocket;
  inFlight: number;
  /** The connection's messages are handled one after another, in order. */
  queue: Promise<void>;
}

/**
 * Live session and analysis updates at /v1/sessions/ws. LiveSockets does the
 * handshake (`remote-viewing:read`, which reads analyses too), the heartbeat
 * and the connection quota; this gateway fans out the events the worker's
 * relay publishes on Redis (RelayedEvents: one subscriber per instance),
 * routed through an index keyed by organisation and mode, then by kind and id.
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
export class SessionUpdatesGateway implements OnModuleInit {
  private readonly logger = new Logger(SessionUpdatesGateway.name);
  private readonly index = new SubscriptionIndex<LiveConnection>();

  constructor(
    private readonly sockets: LiveSockets,
    private readonly events: RelayedEvents,
    private readonly sessions: SessionsService,
    private readonly analyses: AnalysesService,
  ) {}

  /** Open connections on this instance (for tests and diagnostics). */
  get connectionCount(): number {
    return this.index.connectionCount;
  }

  /** Subscriptions held by this instance's connections. */
  get subscriptionCount(): number {
    return this.index.subscriptionCount;
  }

  onModuleInit(): void {
    this.sockets.register({
      path: LIVE_UPDATES_PATH,
      scopes: [Scope.SessionsRead],
      blindMember,
      prepare: () => undefined,
      open: (live) => this.open(live),
    });
    this.events.onEvent((relayed) => this.deliver(relayed));
  }

  private open(live: LiveSocket): void {
    const connection: LiveConnection = { live, inFlight: 0, queue: Promise.resolve() };
    this.index.register(connection, tenantKey(live.principal));
    live.socket.on('message', (data, isBinary) => this.receive(connection, data, isBinary));
    live.socket.on('close', () => this.index.unregister(connection));
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
      this.send(connection, await this.snapshot(connection.live.principal, topic));
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

  /** One relayed event → the subscribed sockets of its organisation and mode. */
  private deliver(relayed: RelayedEvent): void {
    const live = toLiveUpdate(relayed.event);
    if (!live) return;
    const { topic, update } = live;
    const recipients = this.index.recipients(tenantKey(relayed), topic.kind, topic.id);
    if (recipients.size === 0) return;
    const frame = JSON.stringify(update);
    for (const connection of recipients) pushFrame(connection.live, frame, this.logger);
  }

  private send(connection: LiveConnection, message: ServerMessage): void {
    sendFrame(connection.live, message);
  }
}

/** Analysts and judges are blind: live updates carry results and would show them the targets. */
function blindMember(): AppError {
  return new AppError('FORBIDDEN', 'Analysts and judges cannot subscribe to work updates', {
    field: 'role',
    issue:
      'live updates carry results; this needs the admin role (analysts and judges use /v2/assignments and /v2/judging-tasks)',
  });
}
