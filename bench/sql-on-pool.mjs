// What the built repositories need of `Sql` (#database), on a plain pg pool: statements, a
// reader (no replicas: the same pool) and a unit of work, for the phases that call the libs
// directly.

/** `Sql`'s `query`, `rows`, `reader` and `transaction` over `pool`. */
export function sqlOnPool(pool) {
  return {
    query: (text, parameters) => pool.query(text, parameters),
    async rows(text, parameters) {
      return (await pool.query(text, parameters)).rows;
    },
    async reader() {
      return this;
    },
    transaction: (work) => transactionOn(pool, work),
  };
}

/** `Sql.transaction`: BEGIN, `work` with a transaction-like object, COMMIT (ROLLBACK on a throw). */
export async function transactionOn(pool, work, begin = 'BEGIN') {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
