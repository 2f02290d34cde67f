import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { openSealedSecret, sealSecret, type Principal, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql } from '#database';

/** How long a key's first response is replayed. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
/** How long a duplicate waits for the first request to finish before it is refused. */
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 50;

export type IdempotencyOutcome =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown; requestId: string }
  | { kind: 'mismatch'; route: string }
  | { kind: 'other_caller' }
  | { kind: 'unreadable' }
  | { kind: 'in_progress' };

interface KeyRow {
  caller: string;
  route: string;
  request_hash: string;
  response_status: number | null;
  response_sealed: string | null;
  request_id: string;
}

/** Who may replay a response: the credential that made the first request. */
export function callerOf(principal: Principal): string {
  return `${principal.credential}:${principal.subject}`;
}

/**
 * Idempotency-Key records in PostgreSQL, per organisation and mode, so every
 * API instance sees the same ones. A key is claimed by inserting its row
 * (the primary key makes exactly one concurrent request win); the winner
 * stores its response, or gives the key up when it fails; duplicates wait
 * for that and replay the response.
 *
 * A response can carry a secret shown once (a new API key, a client or
 * webhook secret), so it is stored sealed (AES-GCM under SIGNING_KEY_SECRET)
 * and replayed only to the caller that made the first request: anyone else
 * in the organisation gets a conflict, whatever they could do themselves.
 */
@Injectable()
export class IdempotencyRecords {
  private readonly logger = new Logger(IdempotencyRecords.name);

  constructor(
    private readonly sql: Sql,
    private readonly settings: AppSettings,
  ) {}

  async begin(
    principal: Principal,
    key: string,
    route: string,
    requestHash: string,
    requestId: string,
  ): Promise<IdempotencyOutcome> {
    const caller = callerOf(principal);
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      // Inserts the claim, or takes over an expired record of the same key.
      const claimed = await this.sql.rows(
        `INSERT INTO idempotency_keys (organization_id, mode, key, caller, route, request_hash, request_id, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(hours => $8))
         ON CONFLICT (organization_id, mode, key) DO UPDATE
           SET caller = EXCLUDED.caller, route = EXCLUDED.route, request_hash = EXCLUDED.request_hash,
               request_id = EXCLUDED.request_id, response_status = NULL, response_sealed = NULL,
               created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at < now()
         RETURNING 1`,
        [
          principal.organizationId,
          principal.mode,
          key,
          caller,
          route,
          requestHash,
          requestId,
          IDEMPOTENCY_WINDOW_HOURS,
        ],
      );
      if (claimed.length > 0) return { kind: 'claimed' };
      const [row] = await this.sql.rows<KeyRow>(
        `SELECT caller, route, request_hash, response_status, response_sealed, request_id
           FROM idempotency_keys WHERE organization_id = $1 AND mode = $2 AND key = $3`,
        [principal.organizationId, principal.mode, key],
      );
      // Gone: the first request failed and gave the key up; try to claim it again.
      if (!row) continue;
      // Checked first: another caller learns nothing of the request, not even whether it matched.
      if (row.caller !== caller) return { kind: 'other_caller' };
      if (row.route !== route || row.request_hash !== requestHash) {
        return { kind: 'mismatch', route: row.route };
      }
      if (row.response_status !== null) {
        const body = this.open(row.response_sealed);
        if (body === undefined) return { kind: 'unreadable' };
        return { kind: 'replay', status: row.response_status, body, requestId: row.request_id };
      }
      if (Date.now() >= deadline) return { kind: 'in_progress' };
      await sleep(POLL_MS);
    }
  }

  /** Stores the first request's response, sealed, to be replayed. */
  async complete(tenant: Tenant, key: string, status: number, body: unknown): Promise<void> {
    const sealed = sealSecret(
      JSON.stringify(body ?? null),
      this.settings.signingKeySecret,
      'idempotent-response',
    );
    await this.sql.rows(
      `UPDATE idempotency_keys SET response_status = $4, response_sealed = $5
        WHERE organization_id = $1 AND mode = $2 AND key = $3`,
      [tenant.organizationId, tenant.mode, key, status, sealed],
    );
  }

  /** The stored body; undefined when it cannot be opened (SIGNING_KEY_SECRET changed since). */
  private open(sealed: string | null): unknown {
    try {
      return JSON.parse(
        openSealedSecret(
          sealed ?? 'plain:null',
          this.settings.signingKeySecret,
          'idempotent-response',
        ),
      ) as unknown;
    } catch (error) {
      this.logger.warn({ err: error }, 'a stored idempotent response could not be opened');
      return undefined;
    }
  }

  /** Gives the key up after the first request failed, so it can be retried with the same key. */
  async release(tenant: Tenant, key: string): Promise<void> {
    await this.sql.rows(
      `DELETE FROM idempotency_keys
        WHERE organization_id = $1 AND mode = $2 AND key = $3 AND response_status IS NULL`,
      [tenant.organizationId, tenant.mode, key],
    );
  }

  /** Deletes records past their 24 hours (the worker's `idempotency.expire` task, hourly). */
  async deleteExpired(): Promise<number> {
    const gone = await this.sql.rows(
      'DELETE FROM idempotency_keys WHERE expires_at < now() RETURNING 1',
      [],
    );
    return gone.length;
  }
}
