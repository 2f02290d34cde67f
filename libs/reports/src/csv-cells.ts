import type { Options } from 'csv-stringify';

/**
 * A cell a spreadsheet would read as a formula (OWASP "CSV injection"):
 * text starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
 * leading `'`, which spreadsheets show as text. Numbers are written as
 * numbers (a negative number is not a formula), so only text is changed.
 */
export function neutralizeCell(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value.toISOString();
  const text = Array.isArray(value) ? value.join('; ') : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/**
 * The one way reports write CSV (RFC 4180): CRLF line ends, a header row, and
 * every field holding a line break quoted. csv-stringify quotes a field only
 * for the configured record delimiter (CRLF), so a lone `\n` or `\r` would
 * otherwise end the row inside the field and let the text after it — a
 * formula, unneutralised — start a row of its own.
 */
export function csvOptions(columns: readonly string[]): Options {
  return {
    header: true,
    columns: [...columns],
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    cast: { boolean: (value) => (value ? 'true' : 'false') },
  };
}
