import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { AppError } from '#common';
import type { SourceRow } from './import-body.js';
import { IMPORT_LEAF_FIELDS, REQUIRED_IMPORT_FIELDS, type ImportLeafField } from './import-row.js';

/** What separates the items of a list column (`analysts`, `descriptors`, `process.phases`). */
export const CSV_LIST_SEPARATOR = ';';

/** A JSON-like number: `0.8`, `-12.5`, `1e-3`, `+3`; anything else stays text and is refused by the row check. */
const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The header row: every column a known field, named once, the required ones
 * present. Names are trimmed (`type, date` reads as `type` and `date`).
 * Refused as a whole (naming the column), since every row would fail alike.
 */
export function checkCsvHeader(cells: readonly string[]): ImportLeafField[] {
  const columns = cells.map((cell) => cell.trim());
  const seen = new Set<string>();
  for (const column of columns) {
    if (!Object.hasOwn(IMPORT_LEAF_FIELDS, column)) {
      throw AppError.invalid(
        column === '' ? 'header' : column,
        column === ''
          ? 'has an empty column name'
          : `is not a recognised column (the columns are ${Object.keys(IMPORT_LEAF_FIELDS).join(', ')})`,
      );
    }
    if (seen.has(column)) throw AppError.invalid(column, 'is a column named twice in the header');
    seen.add(column);
  }
  for (const required of REQUIRED_IMPORT_FIELDS) {
    if (!seen.has(required)) {
      throw AppError.invalid(required, 'is a required column missing from the header row');
    }
  }
  return columns as ImportLeafField[];
}

/**
 * One CSV record as the row it stands for: dotted columns nested
 * (`location.latitude` → `location: { latitude }`), an empty cell left out,
 * numbers and `true`/`false` read as such (anything else stays text and is
 * refused naming the column), lists split at `;` with blank items dropped.
 */
export function csvRecordToRow(
  columns: readonly ImportLeafField[],
  cells: readonly string[],
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  columns.forEach((column, index) => {
    const cell = cells[index]!;
    if (cell === '') return;
    const value = cellValue(IMPORT_LEAF_FIELDS[column], cell);
    const [head, leaf] = column.split('.') as [string, string | undefined];
    if (leaf === undefined) row[head] = value;
    else ((row[head] ??= {}) as Record<string, unknown>)[leaf] = value;
  });
  return row;
}

function cellValue(kind: 'text' | 'number' | 'boolean' | 'list', cell: string): unknown {
  const trimmed = cell.trim();
  switch (kind) {
    case 'text':
      return cell;
    case 'number':
      return NUMBER_TEXT.test(trimmed) ? Number(trimmed) : cell;
    case 'boolean':
      return /^true$/i.test(trimmed) ? true : /^false$/i.test(trimmed) ? false : cell;
    case 'list':
      return cell
        .split(CSV_LIST_SEPARATOR)
        .map((item) => item.trim())
        .filter((item) => item !== '');
  }
}

const LINE_BREAK = /\r\n|\n|\r/g;
const LEADING_BREAKS = /^(?:\r\n|\n|\r)*/;

function lineBreaks(text: string): number {
  return text.match(LINE_BREAK)?.length ?? 0;
}

interface ParsedRecord {
  record: string[];
  raw: string;
}

/**
 * CSV (RFC 4180: `,` between cells, `"` around a cell holding one, `""` for
 * a quote inside; lines end in `\n` or `\r\n`), streamed through csv-parse:
 * the header row, then one row per record. Lines are counted here from each
 * record's raw text (the blank lines before it, a quoted cell's own line
 * breaks), since csv-parse's own count drifts on `\r\n` inside a quoted cell.
 * A record with more or fewer cells than the header is a row with its issue;
 * blank and whitespace-only lines are skipped. Broken quoting ends the import
 * (400 naming `body` and the line): past it, no record can be told from the
 * next, and guessing would store cells in the wrong fields.
 */
export async function* csvRows(text: AsyncIterable<string>): AsyncGenerator<SourceRow> {
  const parser = parse({
    skip_empty_lines: true,
    relax_column_count: true,
    record_delimiter: ['\r\n', '\n'],
    raw: true,
  });
  const feeding = pipeline(Readable.from(text), parser);
  // Its failure is the iteration's (the parser is destroyed with it); this only keeps it handled.
  feeding.catch(() => undefined);
  let columns: ImportLeafField[] | null = null;
  let linesBefore = 0;
  try {
    for await (const { record, raw } of parser as AsyncIterable<ParsedRecord>) {
      const line = linesBefore + lineBreaks(LEADING_BREAKS.exec(raw)![0]) + 1;
      linesBefore += lineBreaks(raw);
      if (record.length === 1 && record[0]!.trim() === '') continue;
      if (columns === null) {
        columns = checkCsvHeader(record);
        continue;
      }
      if (record.length !== columns.length) {
        yield {
          line,
          issue: {
            field: 'row',
            issue: `has ${record.length} cells where the header has ${columns.length} columns`,
          },
        };
        continue;
      }
      yield { line, value: csvRecordToRow(columns, record) };
    }
  } catch (error) {
    if (error instanceof CsvError) {
      throw AppError.invalid(
        'body',
        `is not valid CSV: ${error.message}; nothing was stored (quote a cell holding a comma, a quote or a line break, and double the quotes inside it)`,
      );
    }
    throw error;
  }
  if (columns === null) {
    throw AppError.invalid('header', 'is missing: a CSV import starts with a header row');
  }
}
