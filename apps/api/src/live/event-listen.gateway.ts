import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { AppError, Scope } from '#common';
import { AppSettings } from '#config';
import type { RelayedEvent } from '#events';
import {
  EVENT_LISTEN_PATH,
  listenError,
  listenOptions,
  listenReady,
  type ListenOptions,
} from './event-listen-messages.js';
import { LiveSockets, pushFrame, sendFrame, type LiveSocket } from './live-sockets.js';
import { RelayedEvents } from './relayed-events.js';
import { tenantKey } from './subscription-index.js';

interface Listener {
  readonly live: LiveSocket;
  readonly types: ReadonlySet<string> | null;
}

/**
 * The event stream of `sas webhooks listen` at /v2/events/listen: every event
 * of the credential's organisation and mode, as the outbox relay publishes
 * it, each sent as one text frame holding exactly the standard envelope a
 * webhook receiver gets (`id`, `type`, `created_at`, `data`, `livemode`,
 * `pending_webhooks`), optionally only some `events` types. The first frame
 * is `listen.ready`; the socket takes no messages. LiveSockets does the
 * handshake (`organizations:read`, the scope of the event log and webhook
 * reads; a person needs the admin role), heartbeat and connection quota.
 */
@Injectable()
export class EventListenGateway implements OnModuleInit {
  private readonly logger = new Logger(EventListenGateway.name);
  /** Organisation and mode → its listeners on this instance. */
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(
    private readonly sockets: LiveSockets,
    private readonly events: RelayedEvents,
    private readonly settings: AppSettings,
  ) {}

  /** Open listeners on this instance (for tests and diagnostics). */
  get connectionCount(): number {
    let count = 0;
    for (const listeners of this.listeners.values()) count += listeners.size;
    return count;
  }

  onModuleInit(): void {
    this.sockets.register<ListenOptions>({
      path: EVENT_LISTEN_PATH,
      scopes: [Scope.OrganizationsRead],
      blindMember,
      prepare: listenOptions,
      open: (live, options) => this.open(live, options),
    });
    this.events.onEvent((relayed) => this.deliver(relayed));
  }

  private open(live: LiveSocket, options: ListenOptions): void {
    // listenOptions made sure the requested mode is the credential's, so the tenant is the principal's.
    const key = tenantKey(live.principal);
    const listener: Listener = { live, types: options.types };
    let listeners = this.listeners.get(key);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(key, listeners);
    }
    listeners.add(listener);
    live.socket.on('close', () => {
      const set = this.listeners.get(key);
      set?.delete(listener);
      if (set?.size === 0) this.listeners.delete(key);
    });
    live.socket.on('message', () =>
      sendFrame(live, listenError('This socket streams events and takes no messages')),
    );
    sendFrame(
      live,
      listenReady(live.principal, options, this.settings.wsHeartbeatSeconds, live.requestId),
    );
  }

  /** One relayed event → the listeners of its organisation and mode that want its type. */
  private deliver(relayed: RelayedEvent): void {
    const listeners = this.listeners.get(tenantKey(relayed));
    if (!listeners) return;
    const frame = JSON.stringify(relayed.event);
    for (const listener of listeners) {
      if (listener.types === null || listener.types.has(relayed.event.type)) {
        pushFrame(listener.live, frame, this.logger);
      }
    }
  }
}

/** Analysts and judges are blind: events carry results and would show them the targets. */
function blindMember(): AppError {
  return new AppError('FORBIDDEN', 'Analysts and judges cannot listen to events', {
    field: 'role',
    issue:
      'events carry results; this needs the admin role (analysts and judges use /v2/assignments and /v2/judging-tasks)',
  });
}
