import { describe, expect, it } from 'vitest';
import type { Tenant } from '#common';
import type { Transaction } from '#database';
import { ImportedCasesRepository } from './imported-cases.repository.js';
import type { ImportedCase } from './import-row.js';

const TENANT: Tenant = { organizationId: '0190a1b2-0000-7000-8000-000000000001', mode: 'live' };

const imported = (externalId: string): ImportedCase => ({
  externalId,
  type: 'dowsing',
  date: new Date('2024-01-01T00:00:00Z'),
  target: `Target ${externalId}`,
  outcome: null,
  confidenceScore: null,
  location: null,
  client: null,
  analysts: [],
  durationMinutes: null,
  modality: 'pendulum',
  phases: [],
  description: null,
  descriptors: [],
  classified: false,
  verified: null,
});

/** A transaction that records its statements and fails the upsert when told to. */
function transaction(upsert: () => unknown[]) {
  const statements: string[] = [];
  const run = async (text: string, parameters: readonly unknown[] = []) => {
    const verb = text.trim().split(/\s+/)[0]!;
    statements.push(verb === 'INSERT' ? 'INSERT' : text);
    if (verb !== 'INSERT') return { rows: [], rowCount: 0 };
    const records = JSON.parse(parameters[2] as string) as { subtype: string | null }[];
    expect(records.every((record) => record.subtype === null)).toBe(true);
    return { rows: upsert(), rowCount: 1 };
  };
  const tx = {
    query: run,
    rows: async (text: string, p?: unknown[]) => (await run(text, p)).rows,
    statements: async (text: string) => [await run(text)],
  };
  return { tx: tx as unknown as Transaction, statements };
}

describe('ImportedCasesRepository#upsertImported', () => {
  const cases = new ImportedCasesRepository();

  it('writes under a savepoint and tells which external ids were new', async () => {
    const { tx, statements } = transaction(() => [
      { external_id: 'a', inserted: true },
      { external_id: 'b', inserted: false },
    ]);
    const inserted = await cases.upsertImported(tx, TENANT, [imported('a'), imported('b')]);
    expect([...inserted]).toEqual([
      ['a', true],
      ['b', false],
    ]);
    expect(statements).toEqual([
      'SAVEPOINT history_import',
      'INSERT',
      'RELEASE SAVEPOINT history_import',
    ]);
  });

  it('rolls back to the savepoint when the statement fails, so the import can go on', async () => {
    const { tx, statements } = transaction(() => {
      throw Object.assign(new Error('value out of range'), { code: '22003' });
    });
    await expect(cases.upsertImported(tx, TENANT, [imported('a')])).rejects.toMatchObject({
      code: '22003',
    });
    expect(statements).toEqual([
      'SAVEPOINT history_import',
      'INSERT',
      'ROLLBACK TO SAVEPOINT history_import; RELEASE SAVEPOINT history_import',
    ]);
  });
});
