/** Error serialization for both apps' JSON logs: what of an error may be logged. */

/** Longest SQL text kept in a log line: enough to recognise the statement. */
const MAX_QUERY_CHARS = 2_000;

/**
 * What of a PostgreSQL error names the failure without carrying data: the
 * SQLSTATE (`code`) and the objects it concerns. `detail` ("Key (x)=(value)
 * already exists"), `where`, `internalQuery` and the statement's parameters
 * carry values — a client's secret hash, say — and are never logged.
 */
const DATABASE_FIELDS = ['severity', 'schema', 'table', 'column', 'constraint', 'routine'] as const;

type SerializedError = Record<string, unknown>;

/**
 * The one error serializer of both apps' logs (`err`, `error` and `cause`
 * keys). pino's default copies every enumerable property, and a failed
 * statement (TypeORM's QueryFailedError, pg's DatabaseError) carries its
 * parameters; this keeps the type, message, stack, code, the SQL text and
 * the database's names of things, and follows `cause` and the attempts of an
 * AggregateError the same way.
 */
export function serializeError(value: unknown): unknown {
  // pino-http hands over its own serialization of the error; the original is on `raw`.
  const error = (value as { raw?: unknown } | null)?.raw ?? value;
  return error instanceof Error ? safeError(error, 0) : value;
}

/**
 * PostgreSQL's messages of data exceptions (SQLSTATE class 22) quote the
 * value they could not take — `invalid input syntax for type uuid: "…"` —
 * and that value is a parameter: it is cut from the message (and the stack).
 */
function withoutValue(error: Error, code: unknown): { message: string; stack?: string } {
  if (typeof code !== 'string' || !code.startsWith('22')) {
    return { message: error.message, stack: error.stack };
  }
  const message = error.message.replace(/: ".*"$/s, ': "…"');
  return { message, stack: error.stack?.split(error.message).join(message) };
}

function safeError(error: Error, depth: number): SerializedError {
  const source = error as Error & Record<string, unknown>;
  const serialized: SerializedError = {
    type: error.constructor?.name ?? error.name,
    ...withoutValue(error, source.code),
  };
  if (typeof source.code === 'string' || typeof source.code === 'number') {
    serialized.code = source.code;
  }
  for (const field of DATABASE_FIELDS) {
    if (typeof source[field] === 'string') serialized[field] = source[field];
  }
  if (typeof source.query === 'string') serialized.query = source.query.slice(0, MAX_QUERY_CHARS);
  if (source.details !== undefined && error.name === 'AppError')
    serialized.details = source.details;
  if (depth < 4) {
    const cause = source.cause ?? source.driverError;
    if (cause instanceof Error && cause !== error) serialized.cause = safeError(cause, depth + 1);
    if (Array.isArray(source.errors)) {
      serialized.errors = source.errors
        .filter((inner): inner is Error => inner instanceof Error)
        .map((inner) => safeError(inner, depth + 1));
    }
  }
  return serialized;
}

/** The serializers both apps give pino: errors under any of the keys the code logs them with. */
export const ERROR_SERIALIZERS = {
  err: serializeError,
  error: serializeError,
  cause: serializeError,
};
