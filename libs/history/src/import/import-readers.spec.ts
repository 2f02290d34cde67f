import { describe, expect, it } from 'vitest';
import { AppError } from '#common';
import { csvRecordToRow, csvRows, checkCsvHeader } from './csv-rows.js';
import { bodyText } from './import-body.js';
import { checkImportRow } from './import-row.js';
import { MAX_NDJSON_LINE_CHARS, ndjsonRows } from './ndjson-rows.js';
import { refusal } from '#common/testing';

async function* chunks<T>(...parts: T[]): AsyncGenerator<T> {
  for (const part of parts) yield part;
}

async function all<T>(source: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of source) items.push(item);
  return items;
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('bodyText', () => {
  it('decodes UTF-8 split anywhere, a multi-byte character across chunks included', async () => {
    const encoded = bytes('\ufeffcafé ☕');
    const parts = [encoded.slice(0, 6), encoded.slice(6, 10), encoded.slice(10)];
    expect((await all(bodyText(chunks(...parts), 1000))).join('')).toBe('café ☕');
  });

  it('refuses bytes that are not UTF-8, naming body', async () => {
    const error = await refusal(
      all(bodyText(chunks(bytes('ok'), Uint8Array.of(0xff, 0xfe, 0x00)), 1000)),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.details.field).toBe('body');
    expect(error.details.issue).toContain('not UTF-8');
  });

  it('refuses a body cut inside a character', async () => {
    const error = await refusal(all(bodyText(chunks(bytes('é').slice(0, 1)), 1000)));
    expect(error.details.field).toBe('body');
  });

  it('refuses more bytes than the limit as soon as they arrive', async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        pulled += 1;
        yield bytes('x'.repeat(100));
      }
    }
    const error = await refusal(all(bodyText(endless(), 1000)));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details).toMatchObject({ field: 'body', suggested_value: 1000 });
    expect(pulled).toBe(11);
  });
});

describe('ndjsonRows', () => {
  it('reads one object per line, counting blank lines, across chunk boundaries and CRLF', async () => {
    const rows = await all(ndjsonRows(chunks('{"a":1}\r\n\n  \n{"b"', ':2}\n{"c":3}')));
    expect(rows).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 4, value: { b: 2 } },
      { line: 5, value: { c: 3 } },
    ]);
  });

  it('reports a line that is not JSON, or not an object, and goes on', async () => {
    const rows = await all(ndjsonRows(chunks('{"a":1}\nnot json\n[1,2]\n"text"\n{"b":2}\n')));
    expect(rows.map((row) => row.line)).toEqual([1, 2, 3, 4, 5]);
    expect(rows[1]).toMatchObject({ line: 2, issue: { field: 'row' } });
    expect((rows[1] as { issue: { issue: string } }).issue.issue).toContain('is not valid JSON');
    expect(rows[2]).toEqual({
      line: 3,
      issue: { field: 'row', issue: 'must be a JSON object (one case per line)' },
    });
    expect(rows[4]).toEqual({ line: 5, value: { b: 2 } });
  });

  it('reports a runaway line without holding it, and reads the next', async () => {
    const long = 'x'.repeat(64 * 1024);
    const parts = ['{"a":"', ...Array.from({ length: 20 }, () => long), '"}\n{"b":2}\n'];
    const rows = await all(ndjsonRows(chunks(...parts)));
    expect(rows).toEqual([
      {
        line: 1,
        issue: { field: 'row', issue: `is longer than ${MAX_NDJSON_LINE_CHARS} characters` },
      },
      { line: 2, value: { b: 2 } },
    ]);
  });

  it('reads nothing from an empty body', async () => {
    expect(await all(ndjsonRows(chunks('', '\n\n')))).toEqual([]);
  });
});

describe('checkCsvHeader', () => {
  it('takes known columns in any order, trimmed', () => {
    expect(
      checkCsvHeader(['target', ' date', 'type ', 'external_id', 'location.latitude']),
    ).toEqual(['target', 'date', 'type', 'external_id', 'location.latitude']);
  });

  it.each<[string[], string, string]>([
    [['type', 'date', 'target'], 'external_id', 'required column'],
    [['type', 'date', 'target', 'external_id', 'colour'], 'colour', 'not a recognised column'],
    [['type', 'date', 'target', 'external_id', 'location'], 'location', 'not a recognised column'],
    [['type', 'date', 'target', 'external_id', 'type'], 'type', 'named twice'],
    [['type', 'date', 'target', 'external_id', ''], 'header', 'empty column name'],
    [['type', 'date', 'target', 'external_id', 'constructor'], 'constructor', 'not a recognised'],
    [['type', 'date', 'target', 'external_id', '__proto__'], '__proto__', 'not a recognised'],
  ])('refuses %j naming %s', (header, field, issue) => {
    let error: unknown;
    try {
      checkCsvHeader(header);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).details.field).toBe(field);
    expect((error as AppError).details.issue).toContain(issue);
  });
});

describe('csvRecordToRow', () => {
  it('nests dotted columns, reads numbers, booleans and lists, leaves empty cells out', () => {
    const columns = checkCsvHeader([
      'external_id',
      'type',
      'date',
      'target',
      'confidence_score',
      'location.latitude',
      'location.longitude',
      'analysts',
      'process.duration_minutes',
      'process.phases',
      'results.description',
      'verdict',
      'location_found',
      'verified_by',
      'client',
    ]);
    const row = csvRecordToRow(columns, [
      'c-1',
      'dowsing',
      '2024-01-02',
      'Well',
      ' 0.5 ',
      '-33.9',
      '151.2',
      'ann; bob ;;',
      '30',
      'survey',
      'Found water',
      'partial',
      'TRUE',
      'QA',
      '',
    ]);
    expect(row).toEqual({
      external_id: 'c-1',
      type: 'dowsing',
      date: '2024-01-02',
      target: 'Well',
      confidence_score: 0.5,
      location: { latitude: -33.9, longitude: 151.2 },
      analysts: ['ann', 'bob'],
      process: { duration_minutes: 30, phases: ['survey'] },
      results: { description: 'Found water' },
      verdict: 'partial',
      location_found: true,
      verified_by: 'QA',
    });
    expect(checkImportRow(row, new Date()).ok).toBe(true);
  });

  it('keeps what is not a number or a boolean as text, for the row check to name', () => {
    const columns = checkCsvHeader([
      'external_id',
      'type',
      'date',
      'target',
      'confidence_score',
      'verdict',
      'verified_by',
      'accuracy_confirmed',
    ]);
    const row = csvRecordToRow(columns, [
      'c',
      'dowsing',
      '2024-01-02',
      'T',
      'high',
      'hit',
      'QA',
      'yes',
    ]);
    const checked = checkImportRow(row, new Date());
    expect(checked.ok ? [] : checked.issues.map((issue) => issue.field)).toEqual([
      'confidence_score',
      'accuracy_confirmed',
    ]);
  });
});

describe('csvRows', () => {
  const HEADER = 'external_id,type,date,target\n';

  it('reads rows after the header with their line in the file, quoted newlines included', async () => {
    const rows = await all(
      csvRows(
        chunks(
          HEADER,
          'a,dowsing,2024-01-01,Well\n\nb,analysis,2024-01-02,"Two\nlines"\nc,dowsing,2024-01-0',
          '3,"Say ""hi"""\r\n',
        ),
      ),
    );
    expect(rows).toEqual([
      { line: 2, value: { external_id: 'a', type: 'dowsing', date: '2024-01-01', target: 'Well' } },
      {
        line: 4,
        value: { external_id: 'b', type: 'analysis', date: '2024-01-02', target: 'Two\nlines' },
      },
      {
        line: 6,
        value: { external_id: 'c', type: 'dowsing', date: '2024-01-03', target: 'Say "hi"' },
      },
    ]);
  });

  it('reports a record with more or fewer cells than the header, and goes on', async () => {
    const rows = await all(
      csvRows(chunks(HEADER, 'a,dowsing\nb,dowsing,2024-01-01,T,extra\nc,dowsing,2024-01-01,T\n')),
    );
    expect(rows).toEqual([
      { line: 2, issue: { field: 'row', issue: 'has 2 cells where the header has 4 columns' } },
      { line: 3, issue: { field: 'row', issue: 'has 5 cells where the header has 4 columns' } },
      { line: 4, value: { external_id: 'c', type: 'dowsing', date: '2024-01-01', target: 'T' } },
    ]);
  });

  it('refuses broken quoting as a whole, naming body and the line', async () => {
    const error = await refusal(
      all(csvRows(chunks(HEADER, 'a,dowsing,2024-01-01,"bad"quote\nb,dowsing,2024-01-01,T\n'))),
    );
    expect(error.details.field).toBe('body');
    expect(error.details.issue).toContain('is not valid CSV');
    expect(error.details.issue).toContain('line 2');
  });

  it('counts lines in CRLF files and quoted line breaks, skipping blank lines', async () => {
    const text =
      'external_id,type,date,target\r\n\r\na,dowsing,2024-01-01,"x\r\ny"\r\n  \r\nb,dowsing,2024-01-01,T\nc,dowsing,2024-01-01,T';
    const rows = await all(csvRows(chunks(...text)));
    expect(rows.map((row) => row.line)).toEqual([3, 6, 7]);
  });

  it('refuses a body without a header, or with a header it cannot use', async () => {
    expect((await refusal(all(csvRows(chunks(''))))).details.field).toBe('header');
    expect((await refusal(all(csvRows(chunks('{"type":"dowsing"}\n'))))).details.field).toBe(
      'body',
    );
    expect((await refusal(all(csvRows(chunks('type,date\n'))))).details.field).toBe('external_id');
    expect((await refusal(all(csvRows(chunks('\n\n'))))).details.field).toBe('header');
    expect((await refusal(all(csvRows(chunks('hello world\n1\n'))))).details.field).toBe(
      'hello world',
    );
  });

  it('passes on the failure of the text it reads', async () => {
    async function* failing(): AsyncGenerator<string> {
      yield HEADER;
      throw AppError.invalid('body', 'is not UTF-8 text');
    }
    expect((await refusal(all(csvRows(failing())))).details.field).toBe('body');
  });
});
