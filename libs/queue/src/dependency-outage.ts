import type { Queue } from 'bullmq';
import { RateLimitError } from 'bullmq';

/** Node's codes for a connection that could not be made or was lost. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/** SQLSTATEs of a server that is going away or full: admin, crash and start-up shutdown, too many connections. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres and its pool say a connection failed in words, without a code. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /is not queryable$/,
  /^timeout exceeded when trying to connect$/,
];

/**
 * A failure of the connection to a dependency (PostgreSQL above all) rather
 * than of the work: refused, reset or lost connections, connection-class
 * SQLSTATEs (class 08, shutdown, too many connections) and the pool's connect
 * timeout, found on the error or anything it wraps (TypeORM's driverError,
 * `cause`, the attempts of an AggregateError). The API answers these 503; the
 * worker waits them out (pauseDuringOutage).
 */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    if (CONNECTION_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((pattern) => pattern.test(message)))
    return true;
  const wrapped = [driverError, cause, ...(Array.isArray(errors) ? errors : [])];
  return wrapped.some((inner) => inner !== error && isDependencyUnavailable(inner, depth + 1));
}

/** How long a queue's workers hold off after a job met an outage; then one job tries again. */
export const OUTAGE_PAUSE_MS = 2_000;

/**
 * Runs a job's work; if it fails because a dependency cannot be reached, the
 * job goes back to waiting without spending one of its attempts, and every
 * worker of the queue holds off for OUTAGE_PAUSE_MS (BullMQ's manual rate
 * limit). An outage longer than the attempts' backoff (about half a minute)
 * would otherwise fail jobs for good and leave their work for the sweeps.
 * The work resumes from what PostgreSQL holds, as after a crash.
 */
export async function pauseDuringOutage(queue: Queue, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!isDependencyUnavailable(error)) throw error;
    try {
      await queue.rateLimit(OUTAGE_PAUSE_MS);
    } catch {
      // Redis is away too: the job cannot be moved back either; it fails as any other.
      throw error;
    }
    throw new RateLimitError();
  }
}
