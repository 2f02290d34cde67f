import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { openSealedSecret, sealSecret, type Principal, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';

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
    private readonly keys: IdempotencyKeysRepository,
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
      const claimed = await this.sql.transaction((tx) =>
        this.keys.claim(
          tx,
          principal,
          key,
          { caller, route, requestHash, requestId },
          IDEMPOTENCY_WINDOW_HOURS,
        ),
      );
      if (claimed) return { kind: 'claimed' };
      const row = await this.keys.find(principal, key);
      // Gone: the first request failed and gave the key up; try to claim it again.
      if (!row) continue;
      // Checked first: another caller learns nothing of the request, not even whether it matched.
      if (row.caller !== caller) return { kind: 'other_caller' };
      if (row.route !== route || row.requestHash !== requestHash) {
        return { kind: 'mismatch', route: row.route };
      }
      if (row.responseStatus !== null) {
        const body = this.open(row.responseSealed);
        if (body === undefined) return { kind: 'unreadable' };
        return { kind: 'replay', status: row.responseStatus, body, requestId: row.requestId };
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
    await this.sql.transaction((tx) => this.keys.complete(tx, tenant, key, status, sealed));
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
    await this.sql.transaction((tx) => this.keys.release(tx, tenant, key));
  }

  /** Deletes records past their 24 hours (the worker's `idempotency.expire` task, hourly). */
  async deleteExpired(): Promise<number> {
    return this.sql.transaction((tx) => this.keys.deleteExpiredAcrossTenants(tx));
  }
}
