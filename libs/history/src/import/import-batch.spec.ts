import { describe, expect, it } from 'vitest';
import type { Tenant } from '#common';
import { IMPORT_BATCH_ROWS, ImportBatch } from './import-batch.js';
import { ImportTally, MAX_REPORTED_ERRORS } from './import-report.js';
import type { ImportedCase } from './import-row.js';
import { importedSubtype } from './imported-case-upsert.js';

const TENANT: Tenant = { organizationId: '0190a1b2-0000-7000-8000-000000000001', mode: 'live' };

function imported(externalId: string): ImportedCase {
  return {
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
    modality: null,
    phases: [],
    description: null,
    descriptors: [],
    classified: false,
    verified: null,
  };
}

/**
 * A transaction that knows some external ids already and refuses, as the
 * database would for its data, any statement holding one of `refused`.
 */
class FakeTransaction {
  readonly statements: string[] = [];
  readonly stored = new Set<string>();

  constructor(
    known: string[] = [],
    private readonly refused = new Set<string>(),
  ) {
    for (const id of known) this.stored.add(id);
  }

  async query(text: string, parameters: unknown[]): Promise<unknown> {
    const verb = text.trim().split(/\s+/).slice(0, 2).join(' ');
    this.statements.push(
      verb === 'INSERT INTO' ? `INSERT ${this.records(parameters).length}` : text,
    );
    if (verb !== 'INSERT INTO') return { rows: [] };
    const records = this.records(parameters);
    if (records.some((record) => this.refused.has(record.external_id))) {
      throw Object.assign(new Error('value out of range'), { code: '22003' });
    }
    const ids = records.map((record) => record.external_id);
    expect(new Set(ids).size, 'an external id twice in one statement').toBe(ids.length);
    return {
      rows: ids.map((id) => {
        const inserted = !this.stored.has(id);
        this.stored.add(id);
        return { external_id: id, inserted };
      }),
    };
  }

  private records(parameters: unknown[]): { external_id: string }[] {
    return JSON.parse(parameters[2] as string) as { external_id: string }[];
  }
}

describe('ImportBatch', () => {
  it('writes a full batch at once, the rest on flush, counting new and known cases', async () => {
    const tx = new FakeTransaction(['known-1', 'known-2']);
    const tally = new ImportTally();
    const batch = new ImportBatch(tx, TENANT, tally);
    const ids = [
      'known-1',
      'known-2',
      ...Array.from({ length: IMPORT_BATCH_ROWS + 8 }, (_, i) => `new-${i}`),
    ];
    for (const [index, id] of ids.entries()) await batch.add(index + 1, imported(id));
    expect(tx.statements.filter((statement) => statement.startsWith('INSERT'))).toEqual([
      `INSERT ${IMPORT_BATCH_ROWS}`,
    ]);
    await batch.flush();
    expect(tx.statements.filter((statement) => statement.startsWith('INSERT'))).toEqual([
      `INSERT ${IMPORT_BATCH_ROWS}`,
      'INSERT 10',
    ]);
    expect(tally).toMatchObject({ imported: IMPORT_BATCH_ROWS + 8, updated: 2, failed: 0 });
  });

  it('lets the later row of an external id win within a batch, the earlier counted as an update', async () => {
    const tx = new FakeTransaction(['old']);
    const tally = new ImportTally();
    const batch = new ImportBatch(tx, TENANT, tally);
    for (const [index, id] of ['a', 'old', 'a', 'b', 'a', 'old'].entries()) {
      await batch.add(index + 1, imported(id));
    }
    await batch.flush();
    expect(tx.statements).toContain('INSERT 3');
    expect(tally).toMatchObject({ imported: 2, updated: 4 });
  });

  it('writes a batch the database refuses row by row, naming the rows at fault', async () => {
    const tx = new FakeTransaction(['b'], new Set(['bad']));
    const tally = new ImportTally();
    const batch = new ImportBatch(tx, TENANT, tally);
    for (const [index, id] of ['a', 'bad', 'b', 'a'].entries())
      await batch.add(index + 10, imported(id));
    await batch.flush();
    expect(tx.statements).toEqual([
      'SAVEPOINT history_import_batch',
      'INSERT 3',
      'ROLLBACK TO SAVEPOINT history_import_batch',
      ...['INSERT 1', 'INSERT 1', 'INSERT 1', 'INSERT 1'].flatMap((insert, index) => [
        'SAVEPOINT history_import_row',
        insert,
        index === 1
          ? 'ROLLBACK TO SAVEPOINT history_import_row'
          : 'RELEASE SAVEPOINT history_import_row',
      ]),
      'RELEASE SAVEPOINT history_import_batch',
    ]);
    expect(tally.report(false)).toEqual({
      imported: 1,
      updated: 2,
      failed: 1,
      errors: [{ line: 11, field: 'row', issue: 'could not be stored (database error 22003)' }],
      errorsTruncated: false,
      dryRun: false,
    });
  });

  it('ends the import on a failure that is not about the data', async () => {
    const tx = {
      query: async (text: string) => {
        if (text.includes('INSERT'))
          throw Object.assign(new Error('terminated'), { code: '57P01' });
        return { rows: [] };
      },
    };
    const batch = new ImportBatch(tx, TENANT, new ImportTally());
    await batch.add(1, imported('a'));
    await expect(batch.flush()).rejects.toThrow('terminated');
  });
});

describe('ImportTally', () => {
  it('lists every issue of a failed row, counts it once, and stops listing at the cap', () => {
    const tally = new ImportTally();
    tally.fail(3, [
      { field: 'type', issue: 'x' },
      { field: 'date', issue: 'y' },
    ]);
    for (let line = 4; line < 4 + MAX_REPORTED_ERRORS; line++)
      tally.fail(line, [{ field: 'target', issue: 'z' }]);
    const report = tally.report(true);
    expect(report.failed).toBe(MAX_REPORTED_ERRORS + 1);
    expect(report.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(report.errors.slice(0, 2)).toEqual([
      { line: 3, field: 'type', issue: 'x' },
      { line: 3, field: 'date', issue: 'y' },
    ]);
    expect(report).toMatchObject({ errorsTruncated: true, dryRun: true });
  });
});

describe('importedSubtype', () => {
  it('is the modality, as for sessions and analyses, but none for dowsing (its cases hold the query type)', () => {
    expect(importedSubtype('remote_viewing', 'crv')).toBe('crv');
    expect(importedSubtype('analysis', 'pattern')).toBe('pattern');
    expect(importedSubtype('dowsing', 'pendulum')).toBeNull();
  });
});
