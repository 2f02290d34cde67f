import { Injectable } from '@nestjs/common';
import { Sql, type Queryable, type Transaction } from '#database';

/** `server_secrets`: sealed secrets every API instance shares, by name. */
@Injectable()
export class ServerSecretsRepository {
  constructor(private readonly sql: Sql) {}

  /** Stores `value` under `name` unless a value is there already (the first instance wins). */
  async insertIfAbsent(tx: Transaction, name: string, value: string): Promise<void> {
    await tx.query(
      'INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
      [name, value],
    );
  }

  async find(name: string, on: Queryable = this.sql): Promise<string | null> {
    const [row] = await on.rows<{ value: string }>(
      'SELECT value FROM server_secrets WHERE name = $1',
      [name],
    );
    return row?.value ?? null;
  }
}
