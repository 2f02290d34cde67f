// What a phase that starts the worker must not inherit from the HTTP phases, which ran without
// one: their events still waiting in the outbox, and jobs left in the bench's BullMQ queues.

import { Redis } from 'ioredis';
import { log } from './helpers.mjs';
import { CONFIG } from './run-config.mjs';

/**
 * Before a phase starts the worker: no worker ran during the HTTP phases, so their events are
 * still in the outbox — mark them relayed, or the worker would now start every one of their
 * sessions and analyses — and empty the job queues. Returns how many events it marked.
 */
export async function quietOutbox(db, organizationId) {
  const { rowCount: skipped } = await db.query(
    'UPDATE events SET relayed_at = now() WHERE relayed_at IS NULL AND organization_id = $1',
    [organizationId],
  );
  // Without this the relay's scan of the unrelayed-events index would wade through every row
  // just updated (dead index entries until autovacuum gets there), slowing the relay down.
  await db.query('VACUUM (ANALYZE) events');
  const {
    rows: [{ count: foreign }],
  } = await db.query('SELECT count(*)::int AS count FROM events WHERE relayed_at IS NULL');
  if (foreign > 0)
    log(`  note: ${foreign} unrelayed events of other organisations; the worker relays them too`);
  await clearQueues();
  return skipped;
}

/** Deletes the bench's BullMQ queues (sessions, analyses, events) so no job outlives the phase. */
export async function clearQueues() {
  const redis = new Redis(CONFIG.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    for (const queue of ['events', 'sessions', 'analyses']) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(
          cursor,
          'MATCH',
          `${CONFIG.redisPrefix}:${queue}:*`,
          'COUNT',
          1000,
        );
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}
