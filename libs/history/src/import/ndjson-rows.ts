import type { SourceRow } from './import-body.js';

/**
 * Longest line read, in characters. The largest valid row is some 60,000
 * (every text at its bound); a longer line is reported and skipped without
 * being held, so one runaway line cannot fill the memory.
 */
export const MAX_NDJSON_LINE_CHARS = 1024 ** 2;
/** Parser messages quote the line; the report keeps them short. */
const MAX_MESSAGE_CHARS = 200;

/**
 * NDJSON: one JSON object per line (`\n` or `\r\n`), blank lines ignored but
 * counted, so `line` is the line of the file a row stands on. A line that is
 * not JSON is a row of its own with its issue; whether a JSON value is a
 * valid row is the row check's (import-row.ts).
 */
export async function* ndjsonRows(text: AsyncIterable<string>): AsyncGenerator<SourceRow> {
  let pending = '';
  let line = 0;
  /** The current line grew past the bound: its rest is dropped up to the next newline. */
  let overlong = false;
  for await (const chunk of text) {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      line += 1;
      const current = overlong ? null : pending + chunk.slice(start, end);
      pending = '';
      overlong = false;
      start = end + 1;
      const row = current === null ? tooLong(line) : parseLine(current, line);
      if (row) yield row;
    }
    if (!overlong) {
      pending += chunk.slice(start);
      if (pending.length > MAX_NDJSON_LINE_CHARS) {
        overlong = true;
        pending = '';
      }
    }
  }
  if (overlong) yield tooLong(line + 1);
  else if (pending !== '') {
    const row = parseLine(pending, line + 1);
    if (row) yield row;
  }
}

function tooLong(line: number): SourceRow {
  return {
    line,
    issue: { field: 'row', issue: `is longer than ${MAX_NDJSON_LINE_CHARS} characters` },
  };
}

function parseLine(text: string, line: number): SourceRow | null {
  const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (trimmed.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    const message = (error as Error).message.slice(0, MAX_MESSAGE_CHARS);
    return { line, issue: { field: 'row', issue: `is not valid JSON (${message})` } };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { line, issue: { field: 'row', issue: 'must be a JSON object (one case per line)' } };
  }
  return { line, value: value as Record<string, unknown> };
}
