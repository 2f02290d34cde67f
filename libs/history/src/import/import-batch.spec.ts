import { describe, expect, it } from 'vitest';
import { IMPORT_BATCH_ROWS, ImportBatch } from './import-batch.js';
import { ImportTally, MAX_REPORTED_ERRORS } from './import-report.js';
import { importedSubtype, type ImportedCase } from './import-row.js';

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
 * The cases' table as the batch writes to it: it knows some external ids
 * already and refuses, as the database would for its data, any statement
 * holding one of `refused`. `writes` records each statement's size and
 * whether it was refused.
 */
class FakeCases {
  readonly writes: string[] = [];
  readonly stored = new Set<string>();

  constructor(
    known: string[] = [],
    private readonly refused = new Set<string>(),
  ) {
    for (const id of known) this.stored.add(id);
  }

  readonly write = async (cases: readonly ImportedCase[]): Promise<Map<string, boolean>> => {
    const ids = cases.map((row) => row.externalId);
    expect(new Set(ids).size, 'an external id twice in one statement').toBe(ids.length);
    if (ids.some((id) => this.refused.has(id))) {
      this.writes.push(`refused ${ids.length}`);
      throw Object.assign(new Error('value out of range'), { code: '22003' });
    }
    this.writes.push(`wrote ${ids.length}`);
    return new Map(
      ids.map((id) => {
        const inserted = !this.stored.has(id);
        this.stored.add(id);
        return [id, inserted];
      }),
    );
  };
}

describe('ImportBatch', () => {
  it('writes a full batch at once, the rest on flush, counting new and known cases', async () => {
    const cases = new FakeCases(['known-1', 'known-2']);
    const tally = new ImportTally();
    const batch = new ImportBatch(cases.write, tally);
    const ids = [
      'known-1',
      'known-2',
      ...Array.from({ length: IMPORT_BATCH_ROWS + 8 }, (_, i) => `new-${i}`),
    ];
    for (const [index, id] of ids.entries()) await batch.add(index + 1, imported(id));
    expect(cases.writes).toEqual([`wrote ${IMPORT_BATCH_ROWS}`]);
    await batch.flush();
    expect(cases.writes).toEqual([`wrote ${IMPORT_BATCH_ROWS}`, 'wrote 10']);
    expect(tally).toMatchObject({ imported: IMPORT_BATCH_ROWS + 8, updated: 2, failed: 0 });
  });

  it('lets the later row of an external id win within a batch, the earlier counted as an update', async () => {
    const cases = new FakeCases(['old']);
    const tally = new ImportTally();
    const batch = new ImportBatch(cases.write, tally);
    for (const [index, id] of ['a', 'old', 'a', 'b', 'a', 'old'].entries()) {
      await batch.add(index + 1, imported(id));
    }
    await batch.flush();
    expect(cases.writes).toEqual(['wrote 3']);
    expect(tally).toMatchObject({ imported: 2, updated: 4 });
  });

  it('writes a batch the database refuses row by row, naming the rows at fault', async () => {
    const cases = new FakeCases(['b'], new Set(['bad']));
    const tally = new ImportTally();
    const batch = new ImportBatch(cases.write, tally);
    for (const [index, id] of ['a', 'bad', 'b', 'a'].entries())
      await batch.add(index + 10, imported(id));
    await batch.flush();
    expect(cases.writes).toEqual(['refused 3', 'wrote 1', 'refused 1', 'wrote 1', 'wrote 1']);
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
    const write = async (): Promise<Map<string, boolean>> => {
      throw Object.assign(new Error('terminated'), { code: '57P01' });
    };
    const batch = new ImportBatch(write, new ImportTally());
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
