import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { serializeError } from './log-serializers.js';

/** What pg's DatabaseError carries (message, SQLSTATE, the server's diagnostics). */
function databaseError(message: string, fields: Record<string, string>): Error {
  return Object.assign(new Error(message), { name: 'error', ...fields });
}

describe('the error serializer of the logs', () => {
  it("keeps a failed statement's code, text and SQL, never its parameters or detail", () => {
    const driverError = databaseError('duplicate key value violates unique constraint "k"', {
      code: '23505',
      detail: 'Key (secret_hash)=(scrypt$16384$8$1$c2FsdA==$aGFzaA==) already exists.',
      constraint: 'k',
      table: 'oauth_clients',
      where: 'SQL statement',
    });
    const error = new QueryFailedError(
      'INSERT INTO "oauth_clients"("secret_hash") VALUES ($1)',
      ['scrypt$16384$8$1$c2FsdA==$aGFzaA=='],
      driverError,
    );
    const logged = serializeError(error) as Record<string, unknown>;
    expect(logged).toMatchObject({
      type: 'QueryFailedError',
      message: 'duplicate key value violates unique constraint "k"',
      code: '23505',
      constraint: 'k',
      table: 'oauth_clients',
      query: 'INSERT INTO "oauth_clients"("secret_hash") VALUES ($1)',
      cause: { type: 'Error', code: '23505' },
    });
    const text = JSON.stringify(logged);
    expect(text).not.toContain('scrypt$');
    expect(text).not.toMatch(/"parameters"|"detail"|"where"|"driverError"/);
  });

  it("cuts the value a data exception's message quotes, from its stack too", () => {
    const error = new QueryFailedError(
      'SELECT * FROM api_keys WHERE id = $1',
      ['sk_live_secret'],
      databaseError('invalid input syntax for type uuid: "sk_live_secret"', { code: '22P02' }),
    );
    const text = JSON.stringify(serializeError(error));
    expect(text).toContain('invalid input syntax for type uuid: \\"…\\"');
    expect(text).not.toContain('sk_live_secret');
  });

  it('reads the original error behind the form pino-http hands over, and leaves other values alone', () => {
    const error = new AppError('CONFLICT', 'taken', { field: 'name', issue: 'is taken' });
    expect(serializeError({ raw: error, parameters: ['x'] })).toEqual({
      type: 'AppError',
      message: 'taken',
      stack: error.stack,
      code: 'CONFLICT',
      details: { field: 'name', issue: 'is taken' },
    });
    expect(serializeError('not an error')).toBe('not an error');
  });

  it('follows causes and the attempts of an AggregateError, bounded', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
    });
    const error = new Error('pool failed', { cause: new AggregateError([refused], 'all failed') });
    expect(serializeError(error)).toMatchObject({
      type: 'Error',
      cause: {
        type: 'AggregateError',
        errors: [
          { type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
        ],
      },
    });
    let deep: Error = new Error('innermost');
    for (let level = 0; level < 20; level++) deep = new Error(`level ${level}`, { cause: deep });
    expect(JSON.stringify(serializeError(deep))).not.toContain('innermost');
  });
});
