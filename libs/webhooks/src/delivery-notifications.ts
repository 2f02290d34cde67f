import type { SqlExecutor } from '#database';

/** PostgreSQL channel that wakes the deliverers when deliveries become due. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';

/** Wakes the deliverers once the surrounding transaction commits. */
export async function notifyDeliverers(tx: SqlExecutor): Promise<void> {
  await tx.query(`SELECT pg_notify('${DELIVERIES_CHANNEL}', '')`, []);
}
