import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Histogram, register } from 'prom-client';

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

export { register as metricsRegistry };
