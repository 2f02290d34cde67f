import { describe, expect, it } from 'vitest';
import type { EntityManager } from 'typeorm';
import type { EventLog } from '#events';
import { AttemptRecords, type DeliveryResult } from './attempt-records.js';
import type { ClaimedDelivery } from './delivery-claims.js';

/** A transaction's manager that records its statements. */
function recordingManager() {
  const statements: { text: string; parameters: unknown[] }[] = [];
  const manager = {
    query: async (text: string, parameters: unknown[] = []) => {
      statements.push({ text, parameters });
      return [];
    },
  } as unknown as EntityManager;
  return { manager, statements };
}

function succeeded(id: string, eventId = `event-${id}`): DeliveryResult {
  const delivery: ClaimedDelivery = {
    id,
    webhookId: 'webhook',
    eventId,
    origin: 'event',
    attempts: 0,
    maxAttempts: 7,
    webhook: null,
    event: null,
  };
  return {
    delivery,
    state: 'succeeded',
    attempts: 1,
    delayMs: 0,
    statusCode: 200,
    error: null,
    attempt: {
      startedAt: new Date(),
      outcome: {
        statusCode: 200,
        durationMs: 3,
        responseBody: 'ok',
        error: null,
        retryAfter: undefined,
      },
    },
    webhookChange: null,
  };
}

const events = {} as EventLog;

describe('AttemptRecords.write', () => {
  it('writes a batch of outcomes in one statement, an event settled by several once', async () => {
    const { manager, statements } = recordingManager();
    const cancelled: DeliveryResult = {
      ...succeeded('c', 'other-event'),
      state: 'cancelled',
      attempts: 0,
      statusCode: null,
      error: 'the webhook is disabled',
      attempt: null,
    };
    await new AttemptRecords(events).write(manager, [
      succeeded('a', 'shared-event'),
      succeeded('b', 'shared-event'),
      cancelled,
    ]);
    expect(statements).toHaveLength(1);
    const [{ text, parameters }] = statements as [{ text: string; parameters: unknown[][] }];
    expect(text).toContain('INSERT INTO webhook_attempts');
    expect(text).toContain('UPDATE webhook_deliveries');
    expect(text).toMatch(
      /UPDATE events e SET pending_webhooks = greatest\(e.pending_webhooks - s.settled, 0\)/,
    );
    expect(text).not.toContain('pg_advisory_xact_lock');
    // Two attempts (a cancellation has none), three deliveries.
    expect(parameters[1]).toEqual(['a', 'b']);
    expect(parameters[2]).toEqual([1, 1]);
    expect(parameters[8]).toEqual(['a', 'b', 'c']);
    expect(parameters[10]).toEqual(['succeeded', 'succeeded', 'cancelled']);
    expect(parameters[12]).toEqual([null, null, 'the webhook is disabled']);
  });

  it('takes the claim lock in the same statement when asked, and alone when nothing ended', async () => {
    const withOutcomes = recordingManager();
    await new AttemptRecords(events).write(withOutcomes.manager, [succeeded('a')], true);
    expect(withOutcomes.statements).toHaveLength(1);
    expect(withOutcomes.statements[0]!.text).toMatch(
      /SELECT pg_advisory_xact_lock\(hashtext\('webhook-delivery-claim'\)\)$/,
    );
    const idle = recordingManager();
    await new AttemptRecords(events).write(idle.manager, [], true);
    expect(idle.statements.map((statement) => statement.text)).toEqual([
      `SELECT pg_advisory_xact_lock(hashtext('webhook-delivery-claim'))`,
    ]);
  });
});
