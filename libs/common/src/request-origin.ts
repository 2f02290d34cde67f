import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a request came from, as the audit log records it. */
export interface RequestOrigin {
  requestId: string;
  /** The client's address as the trusted proxies report it. */
  ip: string | null;
  userAgent: string | null;
}

const origins = new AsyncLocalStorage<RequestOrigin>();

/**
 * Runs `work` (and everything it awaits) as part of the request `origin`, so
 * that code far from the HTTP layer — a repository writing an audit event in
 * its transaction — can say which request, address and user agent made the
 * change without every signature between passing them along.
 */
export function withRequestOrigin<T>(origin: RequestOrigin, work: () => T): T {
  return origins.run(origin, work);
}

/** The request being served, or null outside one (the worker, a periodic task). */
export function currentRequestOrigin(): RequestOrigin | null {
  return origins.getStore() ?? null;
}
