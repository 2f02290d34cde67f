import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';
import type { TokenCacheUsage } from '#auth';

let defaultsCollected = false;

/** Process metrics (CPU, memory, event loop, GC), once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  collectDefaultMetrics();
  defaultsCollected = true;
}

const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Duration of HTTP requests by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

/** Times every request, labelled by the route pattern (not the raw path, which would explode cardinality). */
export function httpMetricsMiddleware(
  request: Request,
  response: Response,
  next: NextFunction,
): void {
  const end = httpDuration.startTimer();
  response.on('finish', () => {
    const route = (request.route as { path?: string } | undefined)?.path;
    end({
      method: request.method,
      route: route ? `${request.baseUrl}${route}` : 'unmatched',
      status: response.statusCode,
    });
  });
  next();
}

/** The verified-token caches of the API instances in this process (one in production). */
const tokenCaches = new Set<{ usage(): TokenCacheUsage }>();
const tokenCacheSum = (pick: (usage: TokenCacheUsage) => number) =>
  [...tokenCaches].reduce((sum, cache) => sum + pick(cache.usage()), 0);

// Gauges for what it holds, counters for how often it answered; each read from the caches at scrape time.
const TOKEN_CACHE_METRICS = [
  [
    Gauge,
    'access_token_cache_entries',
    'Access tokens held verified in memory (ACCESS_TOKEN_CACHE_ENTRIES at most)',
    (usage: TokenCacheUsage) => usage.entries,
  ],
  [
    Gauge,
    'access_token_cache_bytes',
    'Estimated memory of the verified access tokens held (ACCESS_TOKEN_CACHE_MB at most)',
    (usage: TokenCacheUsage) => usage.bytes,
  ],
  [
    Counter,
    'access_token_cache_hits_total',
    'Requests whose access token was found verified in memory',
    (usage: TokenCacheUsage) => usage.hits,
  ],
  [
    Counter,
    'access_token_cache_misses_total',
    'Requests whose access token had its signature verified',
    (usage: TokenCacheUsage) => usage.misses,
  ],
] as const;
for (const [Metric, name, help, pick] of TOKEN_CACHE_METRICS) {
  new Metric({
    name,
    help,
    collect() {
      this.reset();
      this.inc(tokenCacheSum(pick));
    },
  });
}

/** Publishes a verified-token cache's size and hit counts on /metrics. */
export function watchTokenCache(cache: { usage(): TokenCacheUsage }): void {
  tokenCaches.add(cache);
}

export { register as metricsRegistry };
