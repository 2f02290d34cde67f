import type * as Api from '../generated/types.gen.js';
import type { FiltersOf } from '../api-types.js';
import { type CursorList, cursorList } from '../pagination.js';
import type { RequestOptions } from '../transport.js';
import { Resource } from './resource.js';

export type AuditEvent = Api.AuditEventListV2Dto['data'][number];

type TimeFilters = {
  /** Events at or after this time (an ISO 8601 date-time, or a Date). */
  created_after?: string | Date;
  /** Events before this time (an ISO 8601 date-time, or a Date). */
  created_before?: string | Date;
};

/** What `list` selects by: `action`, `actor_id`, `target_id`, a time range, and `per_page`. */
export type AuditEventFilters = Omit<
  FiltersOf<Api.AuditEventsV2ControllerListV2Data, 'cursor'>,
  keyof TimeFilters
> &
  TimeFilters;

/** What `export` selects by: the filters of `list` without paging. */
export type AuditEventExportFilters = Omit<AuditEventFilters, 'per_page'>;

/**
 * The organisation's audit log (`GET /v2/audit-events`, admins with
 * `organizations:read`): every security-relevant change in the credential's
 * mode, newest first.
 */
export class AuditEvents extends Resource {
  /** Every matching event, newest first, page after page. */
  list(filters: AuditEventFilters = {}, options?: RequestOptions): CursorList<AuditEvent> {
    return cursorList((cursor) =>
      this.call(
        { method: 'GET', path: '/v2/audit-events', query: { ...filters, cursor } },
        options,
      ),
    );
  }

  /**
   * Every matching event, newest first, in one NDJSON answer read line by
   * line as it arrives (`Accept: application/x-ndjson`): no pages, and only
   * the event being read held in memory, however long the log.
   *
   * ```ts
   * for await (const event of client.auditEvents.export({ action: 'api_key.created' })) {
   *   console.log(event.created_at, event.actor.id, event.target.id);
   * }
   * ```
   *
   * Leaving the loop early closes the connection. `timeoutMs` limits each
   * silence of the stream, not its whole length.
   */
  export(
    filters: AuditEventExportFilters = {},
    options?: RequestOptions,
  ): AsyncGenerator<AuditEvent> {
    return this.transport.ndjson<AuditEvent>(
      { method: 'GET', path: '/v2/audit-events', query: { ...filters } },
      options,
    );
  }
}
