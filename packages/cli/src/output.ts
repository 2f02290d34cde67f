import { CliError, EXIT_FAILURE } from './exit-codes.js';

/**
 * Everything `sas` prints: JSON with `--json` (one document on stdout, or one
 * line per item for streams), human tables otherwise. Colours only on a
 * terminal, never with NO_COLOR (https://no-color.org) or TERM=dumb.
 * Kept free of the SDK so `sas --help` loads nothing heavy.
 */
export interface Output {
  readonly json: boolean;
  /** A result: `data` as JSON, or `human()` as text. */
  result(data: unknown, human: () => string): void;
  /** A line for people only (stderr, so stdout stays parseable). */
  info(line: string): void;
  readonly colour: Colours;
}

export interface Colours {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function colourEnabled(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && process.env.TERM !== 'dumb';
}

export function colours(enabled: boolean): Colours {
  const paint = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    bold: paint(1, 22),
    dim: paint(2, 22),
    green: paint(32, 39),
    red: paint(31, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
  };
}

export function createOutput(json: boolean): Output {
  return {
    json,
    colour: colours(colourEnabled(process.stdout)),
    result(data, human) {
      process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
    },
    info(line) {
      if (!json) process.stderr.write(`${line}\n`);
    },
  };
}

/** A plain table: a header row, then one row per item, columns padded to fit. */
export function table(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
  colour?: Colours,
): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((column) => cellText(row[column])));
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...cells.map((row) => row[i]!.length)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const header = line(columns.map((column) => column.toUpperCase()));
  return [colour ? colour.bold(header) : header, ...cells.map(line)].join('\n');
}

/** `key: value` lines for one object, nested objects as JSON. */
export function fields(record: Record<string, unknown>, colour?: Colours): string {
  const width = Math.max(0, ...Object.keys(record).map((key) => key.length));
  return Object.entries(record)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const name = `${key}:`.padEnd(width + 2);
      return `${colour ? colour.dim(name) : name}${cellText(value, true)}`;
    })
    .join('\n');
}

function cellText(value: unknown, long = false): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object')) {
    return value.join(',');
  }
  if (typeof value === 'object') {
    const text = JSON.stringify(value);
    return long || text.length <= 60 ? text : `${text.slice(0, 57)}...`;
  }
  return String(value);
}

/** The shape of the SDK's SasError, read without importing the SDK. */
interface ServiceError {
  message: string;
  status: number;
  code: string;
  details: Record<string, unknown>;
  requestId: string | null;
  helpUrl: string | null;
}

function isServiceError(error: unknown): error is ServiceError {
  return (
    error instanceof Error &&
    typeof (error as Partial<ServiceError>).code === 'string' &&
    'requestId' in error &&
    'status' in error
  );
}

/**
 * Prints an error as the user needs it — what went wrong, the code, the
 * request id to quote — and answers the exit code.
 */
export function reportError(error: unknown, json: boolean): number {
  const colour = colours(colourEnabled(process.stderr));
  if (isServiceError(error)) {
    if (json) {
      process.stdout.write(
        `${JSON.stringify(
          {
            error: {
              status: error.status,
              code: error.code,
              message: error.message,
              details: error.details,
              request_id: error.requestId,
              help_url: error.helpUrl,
            },
          },
          null,
          2,
        )}\n`,
      );
      return EXIT_FAILURE;
    }
    const lines = [
      `${colour.red('Error:')} ${error.message}`,
      `  code:       ${error.code}${error.status ? ` (HTTP ${error.status})` : ''}`,
    ];
    for (const [key, value] of Object.entries(error.details ?? {})) {
      lines.push(
        `  ${`${key}:`.padEnd(11)} ${typeof value === 'string' ? value : JSON.stringify(value)}`,
      );
    }
    if (error.requestId) lines.push(`  request id: ${error.requestId}`);
    if (error.helpUrl) lines.push(`  help:       ${error.helpUrl}`);
    process.stderr.write(`${lines.join('\n')}\n`);
    return EXIT_FAILURE;
  }
  const exitCode = error instanceof CliError ? error.exitCode : EXIT_FAILURE;
  const message = error instanceof Error ? error.message : String(error);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ error: { code: exitCode === 2 ? 'USAGE' : 'FAILED', message } }, null, 2)}\n`,
    );
  } else {
    process.stderr.write(`${colour.red('Error:')} ${message}\n`);
    if (!(error instanceof CliError) && error instanceof Error && process.env.SAS_DEBUG) {
      process.stderr.write(`${error.stack}\n`);
    }
  }
  return exitCode;
}
