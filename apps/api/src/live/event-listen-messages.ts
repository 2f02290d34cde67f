import { AppError, MODES, toPublicId, type Mode, type Principal } from '#common';
import { EVENT_TYPES } from '#events';

/**
 * The protocol of /v2/events/listen (`sas webhooks listen`), as pure
 * functions: the upgrade's query parameters and the control frames. Event
 * frames are the relayed envelopes themselves, unchanged.
 */

export const EVENT_LISTEN_PATH = '/v2/events/listen';

/** Every event type. */
export const ALL_EVENTS = '*';

export interface ListenOptions {
  mode: Mode;
  /** Event types to stream, or null for every one (`*`). */
  types: ReadonlySet<string> | null;
}

/** The first frame: what this socket streams. */
export interface ListenReady {
  type: 'listen.ready';
  organization_id: string;
  mode: Mode;
  livemode: boolean;
  events: string[];
  heartbeat_seconds: number;
  request_id: string;
}

export interface ListenError {
  type: 'listen.error';
  error: { code: 'INVALID_REQUEST'; message: string };
}

/**
 * `mode` (default `test`, as the Stripe CLI) must be the credential's own
 * mode: a live credential streams live events only when asked for them in so
 * many words, and never test ones; a test credential never streams live ones.
 * `events`: comma-separated event types, or `*` (the default); repeatable.
 */
export function listenOptions(query: URLSearchParams, principal: Principal): ListenOptions {
  const requested = query.get('mode') ?? 'test';
  if (!(MODES as readonly string[]).includes(requested)) {
    throw AppError.invalid('mode', `must be one of ${MODES.join(', ')}`, principal.mode);
  }
  const mode = requested as Mode;
  if (mode !== principal.mode) {
    throw AppError.invalid(
      'mode',
      principal.mode === 'live'
        ? 'this is a live credential: it streams live events, and only when asked with mode=live'
        : 'this is a test credential: it streams test events only (the default); live events need a live credential',
      principal.mode,
    );
  }
  const names = query
    .getAll('events')
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0 || names.includes(ALL_EVENTS)) return { mode, types: null };
  const unknown = names.filter((name) => !(EVENT_TYPES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw AppError.invalid(
      'events',
      `unknown event type ${unknown.map((name) => `"${name}"`).join(', ')}; give "*" or any of ${EVENT_TYPES.join(', ')}`,
    );
  }
  return { mode, types: new Set(names) };
}

export function listenReady(
  principal: Principal,
  options: ListenOptions,
  heartbeatSeconds: number,
  requestId: string,
): ListenReady {
  return {
    type: 'listen.ready',
    organization_id: toPublicId('organization', principal.organizationId),
    mode: options.mode,
    livemode: options.mode === 'live',
    events: options.types === null ? [ALL_EVENTS] : [...options.types],
    heartbeat_seconds: heartbeatSeconds,
    request_id: requestId,
  };
}

/** The answer to anything a client sends: this socket only streams. */
export function listenError(message: string): ListenError {
  return { type: 'listen.error', error: { code: 'INVALID_REQUEST', message } };
}
