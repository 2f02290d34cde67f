import type { KnownEventType } from './catalogue.js';

/**
 * Internal events: outbox rows that start work (`EventJobs.on`) but announce
 * nothing. They commit with the change that asks for the work, as a
 * `*.created` event does, so the work cannot be asked for and lost (no write
 * to Redis after the commit); but they are not part of the public catalogue,
 * so the relay never fans them out to webhooks nor publishes them to live
 * sockets, and the event log (list, get, replay, dashboards) never shows
 * them. The `internal.` prefix is what every one of those places tests, so
 * a new internal type needs no change anywhere else.
 */
export const INTERNAL_EVENT_PREFIX = 'internal.';

/** Internal event name → data shape (as EventDataMap is for the public catalogue). */
export interface InternalEventDataMap {
  /** A report was asked for: the relay queues its `build` job (libs/reports). */
  'internal.report_requested': { report_id: string };
}

export type InternalEventType = keyof InternalEventDataMap;

/** Every type the outbox takes: the public catalogue's and the internal ones. */
export type OutboxEventType = KnownEventType | InternalEventType;

/** Compile-time check that every internal type carries the prefix the filters rely on. */
export const INTERNAL_TYPES_ARE_PREFIXED: InternalEventType extends `${typeof INTERNAL_EVENT_PREFIX}${string}`
  ? true
  : never = true;

export function isInternalEvent(type: string): boolean {
  return type.startsWith(INTERNAL_EVENT_PREFIX);
}
