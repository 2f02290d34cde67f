import type { Transaction } from './connection.js';
import type { Sql } from './sql.js';

/** Tables of work whose rows carry an `event_sequence`. */
export type SequencedTable = 'sessions' | 'analyses';

/**
 * Runs a state change of one piece of work in a transaction that holds its
 * row (FOR UPDATE), handing `change` the sequence number its next event
 * takes. A row deleted meanwhile has nothing left to move on: false.
 */
export function sequencedTransition(
  sql: Sql,
  table: SequencedTable,
  id: string,
  change: (tx: Transaction, sequence: number) => Promise<boolean>,
): Promise<boolean> {
  return sql.transaction(async (tx) => {
    const { rows } = await tx.query<{ event_sequence: number }>(
      `SELECT event_sequence FROM ${table} WHERE id = $1 FOR UPDATE`,
      [id],
    );
    if (!rows[0]) return false;
    return change(tx, rows[0].event_sequence + 1);
  });
}
