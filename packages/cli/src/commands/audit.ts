import type { AuditEvent, AuditEventFilters } from '@sas/sdk';
import { sdkClient } from '../api.js';
import type { Action } from '../command-context.js';
import { resolveCredentials } from '../config.js';
import { UsageError } from '../exit-codes.js';
import { table } from '../output.js';

interface AuditListOptions {
  action?: string;
  actor?: string;
  target?: string;
  since?: string;
  until?: string;
  limit?: number;
  ndjson?: boolean;
}

/** Rows of the table: without --limit, this many. */
export const DEFAULT_AUDIT_LIMIT = 20;

/**
 * `sas audit list`: the organisation's audit log, newest first, as a table,
 * `--json` (one array), or `--ndjson` (the SDK's `export`: every matching
 * event, one JSON object a line, written as it arrives; `--limit` stops it
 * early when given).
 */
export const list: Action<AuditListOptions> = async ({ options, globals, out }) => {
  if (options.ndjson && globals.json) {
    throw new UsageError('--json and --ndjson: choose one (--ndjson streams one event a line)');
  }
  const client = await sdkClient(await resolveCredentials(globals));
  const filters = Object.fromEntries(
    Object.entries({
      action: options.action,
      actor_id: options.actor,
      target_id: options.target,
      created_after: options.since,
      created_before: options.until,
    }).filter(([, value]) => value !== undefined),
  ) as AuditEventFilters;
  if (options.ndjson) {
    await streamLines(client.auditEvents.export(filters), options.limit ?? Infinity);
    return;
  }
  const limit = options.limit ?? DEFAULT_AUDIT_LIMIT;
  const events = await client.auditEvents
    .list({ ...filters, per_page: Math.max(1, Math.min(100, limit)) })
    .toArray(limit);
  out.result(events, () => table(events.map(row), COLUMNS, out.colour));
};

const COLUMNS = ['time', 'action', 'actor', 'target', 'ip'];

function row(event: AuditEvent): Record<string, unknown> {
  return {
    time: event.created_at,
    action: event.action,
    actor: `${event.actor.type}:${event.actor.id}`,
    target: `${event.target.type}:${event.target.id}`,
    ip: event.ip,
  };
}

/**
 * Writes each event as one line while the export streams, waiting when stdout
 * is full (a slow pipe holds the stream back rather than filling memory); a
 * reader gone (`| head`) ends it quietly, closing the connection.
 */
async function streamLines(events: AsyncGenerator<AuditEvent>, limit: number): Promise<void> {
  const stdout = process.stdout;
  let closed = false;
  // Kept for the rest of the process: a write still in flight may fail after the loop.
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
  let written = 0;
  if (limit <= 0) return;
  for await (const event of events) {
    if (!stdout.write(`${JSON.stringify(event)}\n`)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          stdout.off('drain', done);
          stdout.off('close', done);
          stdout.off('error', done);
          resolve();
        };
        stdout.on('drain', done);
        stdout.on('close', done);
        stdout.on('error', done);
      });
    }
    written += 1;
    // Leaving the loop closes the export's connection.
    if (written >= limit || closed) break;
  }
}
