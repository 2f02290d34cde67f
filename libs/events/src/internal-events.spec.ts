import { describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import type { Sql } from '#database';
import { EVENT_TYPES } from './catalogue.js';
import { EventReadModelRepository } from './event-read-model.repository.js';
import { EventReader } from './event-reader.js';
import { EventsRepository } from './events.repository.js';
import { isInternalEvent } from './internal-events.js';

const TENANT = { organizationId: '0193c0de-0000-7000-8000-0000000000aa', mode: 'live' } as const;
const EVENT_ID = '0193c0de-0000-7000-8000-000000000001';
const ANNOUNCED_ONLY = "type NOT LIKE 'internal.%'";

/** A Sql that records every statement and finds `found` (nothing by default). */
function recordingSql(found: Record<string, unknown>[] = []) {
  const statements: string[] = [];
  const sql = {
    rows: async (text: string) => {
      statements.push(text);
      return text.includes('count(*)') ? [{ count: 0 }] : found;
    },
  } as unknown as Sql;
  return { sql, statements };
}

describe('internal events', () => {
  it('are none of the public catalogue, so no webhook can subscribe to one', () => {
    expect(EVENT_TYPES.filter(isInternalEvent)).toEqual([]);
    expect(isInternalEvent('internal.report_requested')).toBe(true);
  });

  it('stay out of the event list, webhook replays and the dashboard activity', async () => {
    const { sql, statements } = recordingSql();
    const events = new EventsRepository(sql);
    await events.page(TENANT, {}, { afterId: null, before: null, perPage: 10 });
    await events.idsForReplay(
      TENANT,
      { types: 'all', exceptFailuresOf: 'wh_x', from: null, to: null, afterId: null },
      10,
    );
    await new EventReadModelRepository(sql).recent(TENANT, 10);
    expect(statements.length).toBeGreaterThanOrEqual(3);
    for (const statement of statements) {
      expect(statement.replace('e.type', 'type')).toContain(ANNOUNCED_ONLY);
    }
  });

  it('are not found by id', async () => {
    const row = {
      id: EVENT_ID,
      organization_id: TENANT.organizationId,
      mode: TENANT.mode,
      type: 'internal.report_requested',
      data: { report_id: 'rpt_x' },
      request_id: null,
      pending_webhooks: 0,
      created_at: new Date(),
      target_webhook_id: null,
      relayed_at: new Date(),
    };
    const reader = new EventReader(new EventsRepository(recordingSql([row]).sql));
    await expect(reader.get(TENANT, toPublicId('event', EVENT_ID))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const announced = new EventReader(
      new EventsRepository(recordingSql([{ ...row, type: 'report.completed' }]).sql),
    );
    expect(await announced.get(TENANT, toPublicId('event', EVENT_ID))).toMatchObject({
      type: 'report.completed',
    });
  });
});
