import { Injectable } from '@nestjs/common';
import { rowMapping, Sql, type Queryable, type Transaction } from '#database';
import type { SigningKeyEntity } from './entities/signing-key.entity.js';

const SIGNING_KEY = rowMapping<SigningKeyEntity, SigningKeyColumn>(
  'signing_keys',
  {
    kid: 'kid',
    algorithm: 'algorithm',
    public_jwk: 'publicJwk',
    private_jwk: 'privateJwk',
    created_at: 'createdAt',
    activates_at: 'activatesAt',
    retires_at: 'retiresAt',
  },
  ['public_jwk'],
);

type SigningKeyColumn =
  'kid' | 'algorithm' | 'public_jwk' | 'private_jwk' | 'created_at' | 'activates_at' | 'retires_at';

type SigningKeyRow = Record<SigningKeyColumn, unknown>;

/** A key about to be stored: published from its insert, signing from `activatesAt`. */
export type NewSigningKey = Pick<
  SigningKeyEntity,
  'kid' | 'algorithm' | 'publicJwk' | 'privateJwk' | 'activatesAt'
>;

/** The token-signing key set (`signing_keys`): the service's own, of no tenant. */
@Injectable()
export class SigningKeysRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Holds, until `tx` ends, the lock that makes the first key's check and
   * insert one step across instances starting together.
   */
  async lockFirstKey(tx: Transaction): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      'signing-keys.ensure',
    ]);
  }

  async any(on: Queryable = this.sql): Promise<boolean> {
    const rows = await on.rows(`SELECT 1 FROM signing_keys LIMIT 1`);
    return rows.length > 0;
  }

  /** A new key; `created_at` is the database's clock (when it is first published). */
  async insert(tx: Transaction, key: NewSigningKey): Promise<void> {
    await tx.query(
      `INSERT INTO signing_keys (kid, algorithm, public_jwk, private_jwk, activates_at, retires_at)
        VALUES ($1, $2, $3, $4, $5, NULL)`,
      [key.kid, key.algorithm, JSON.stringify(key.publicJwk), key.privateJwk, key.activatesAt],
    );
  }

  /** Every key but `kid` that has no retirement yet retires at `at`. */
  async retireAllBut(tx: Transaction, kid: string, at: Date): Promise<void> {
    await tx.query(
      `UPDATE signing_keys SET retires_at = $2 WHERE kid <> $1 AND retires_at IS NULL`,
      [kid, at],
    );
  }

  /** Deletes the key `kid`; whether there was one. */
  async delete(tx: Transaction, kid: string): Promise<boolean> {
    const rows = await tx.rows(`DELETE FROM signing_keys WHERE kid = $1 RETURNING kid`, [kid]);
    return rows.length > 0;
  }

  /** Every key, oldest first. */
  async all(on: Queryable = this.sql): Promise<SigningKeyEntity[]> {
    const rows = await on.rows<SigningKeyRow>(
      `SELECT ${SIGNING_KEY.selectList} FROM signing_keys ORDER BY created_at ASC`,
    );
    return rows.map((row) => SIGNING_KEY.fromRow(row));
  }

  /** The key that signs at `at`: the one activated last by then. */
  async activeAt(at: Date, on: Queryable = this.sql): Promise<SigningKeyEntity | null> {
    const [row] = await on.rows<SigningKeyRow>(
      `SELECT ${SIGNING_KEY.selectList} FROM signing_keys WHERE activates_at <= $1
        ORDER BY activates_at DESC LIMIT 1`,
      [at],
    );
    return row ? SIGNING_KEY.fromRow(row) : null;
  }

  /** When the newest key was created, or null when there is none. */
  async newestCreatedAt(on: Queryable = this.sql): Promise<Date | null> {
    const [newest] = await on.rows<{ created_at: Date }>(
      'SELECT created_at FROM signing_keys ORDER BY created_at DESC LIMIT 1',
    );
    return newest?.created_at ?? null;
  }
}
