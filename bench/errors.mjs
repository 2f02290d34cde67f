// How the bench prints and saves errors: with their whole `cause` chain (fetch hides the real
// reason — ECONNREFUSED, a headers timeout, a reset socket — in `error.cause`, possibly nested) and
// the `errors` of an AggregateError (a connect to localhost tries ::1 and 127.0.0.1 and fails with
// both). Used by every bench script that reports an error.

const DETAIL_KEYS = ['code', 'errno', 'syscall', 'address', 'port', 'status', 'statusCode'];
const MAX_DEPTH = 8;

/** `code ECONNREFUSED, syscall connect, …` of the properties that say what failed, or ''. */
function details(error) {
  if (error === null || typeof error !== 'object') return '';
  const parts = DETAIL_KEYS.filter((key) => error[key] !== undefined && error[key] !== null).map(
    (key) => `${key} ${error[key]}`,
  );
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function headline(error) {
  if (error instanceof Error || (error && typeof error === 'object' && 'message' in error)) {
    const name = error.name ?? 'Error';
    return `${name}: ${error.message || '(no message)'}${details(error)}`;
  }
  return String(error);
}

/**
 * An error as text: its name and message (with code/syscall/address where present), the first
 * `frames` lines of its stack, then each `cause:` and AggregateError `errors[i]:` below it,
 * indented, to any depth (cycles cut). `{frames: 0}` gives the chain without stacks,
 * `{oneLine: true}` the chain on one line (`A: … ← cause: B: …`).
 */
export function describeError(error, { frames = 6, oneLine = false } = {}) {
  if (oneLine)
    return describeError(error, { frames: 0 })
      .split('\n')
      .map((line) => line.trim())
      .join(' ← ');
  const lines = [];
  const seen = new Set();
  const walk = (value, label, depth) => {
    const pad = '  '.repeat(depth);
    if (value !== null && typeof value === 'object') {
      if (seen.has(value)) return void lines.push(`${pad}${label}(the same error again)`);
      seen.add(value);
    }
    lines.push(`${pad}${label}${headline(value)}`);
    if (frames > 0 && typeof value?.stack === 'string') {
      const stack = value.stack
        .split('\n')
        .filter((line) => /^\s+at /.test(line))
        .slice(0, frames);
      for (const frame of stack) lines.push(`${pad}  ${frame.trim()}`);
    }
    if (depth >= MAX_DEPTH) return;
    if (value !== null && typeof value === 'object') {
      if (Array.isArray(value.errors))
        value.errors.forEach((inner, i) => walk(inner, `errors[${i}]: `, depth + 1));
      if (value.cause !== undefined) walk(value.cause, 'cause: ', depth + 1);
    }
  };
  walk(error, '', 0);
  return lines.join('\n');
}

/** The same chain as plain JSON, for the results files. */
export function errorToJson(error, depth = 0, seen = new Set()) {
  if (error === null || typeof error !== 'object') return { message: String(error) };
  if (seen.has(error)) return { message: '(the same error again)' };
  seen.add(error);
  const json = { name: error.name ?? 'Error', message: error.message ?? String(error) };
  for (const key of DETAIL_KEYS) if (error[key] !== undefined) json[key] = error[key];
  if (typeof error.stack === 'string') json.stack = error.stack;
  if (depth < MAX_DEPTH) {
    if (Array.isArray(error.errors))
      json.errors = error.errors.map((inner) => errorToJson(inner, depth + 1, seen));
    if (error.cause !== undefined) json.cause = errorToJson(error.cause, depth + 1, seen);
  }
  return json;
}
