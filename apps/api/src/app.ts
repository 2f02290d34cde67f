import type { Server } from 'node:http';
import 'reflect-metadata';
import { VersioningType, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { quietStartup } from '#common';
import { VerifiedTokenCache } from '#auth';
import type { Settings } from '#config';
import { ApiModule } from './api.module.js';
import { mountDashboard } from './dashboard/dashboard-assets.js';
import { AuthorizationServer } from './oauth/authorization-server/authorization-server.js';
import { collectProcessMetrics, httpMetricsMiddleware, watchTokenCache } from './health/metrics.js';
import { installBodyParsing } from './http/body-parsing.js';
import { ApiHttpAdapter } from './http/api-http-adapter.js';
import { RequestCounting } from './http/request-counting.js';
import { requestIdMiddleware } from './http/request-id.middleware.js';
import { SandboxRouting } from './http/sandbox.js';
import { createValidationPipe } from './http/validation.js';
import { LiveSockets } from './live/live-sockets.js';
import { buildOpenApiDocument, mountOpenApi } from './openapi.js';

const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The configured API application, not yet listening (main.ts and the tests share it). */
export async function createApiApp(settings: Settings): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    ApiModule.forSettings(settings),
    new ApiHttpAdapter(),
    { bodyParser: false, bufferLogs: true },
  );
  app.useLogger(quietStartup(app.get(Logger)));
  const express = app.getHttpAdapter().getInstance();
  express.disable('x-powered-by');
  // Bodies are small and rarely re-fetched unchanged; hashing each one costs more than it saves.
  express.set('etag', false);
  // request.ip (sign-in attempt and rate counters) and the issuer's X-Forwarded-Proto/-Host.
  express.set('trust proxy', settings.trustedProxies);
  app.use(requestIdMiddleware);
  app.use(httpMetricsMiddleware);
  // Every request is counted (and every response gets X-RateLimit-*) before anything answers it.
  app.use(app.get(RequestCounting).middleware);
  // A plain request to a WebSocket path: 426 Upgrade Required, not a route's "no such id".
  app.use(app.get(LiveSockets).refusePlainRequests);
  installBodyParsing(express, settings.bodyLimitBytes, settings.publicUrl);
  // The spec's alias of the authorization endpoint; 308 keeps the method and query.
  express.get('/oauth/authorize', (request, response) => {
    const query = request.originalUrl.slice(request.path.length);
    response.redirect(308, `/oauth2/authorize${query}`);
  });
  app.get(AuthorizationServer).mount(express);
  mountDashboard(express, settings.publicUrl, settings.dashboardDir);
  // WebSockets (live updates /v1/sessions/ws, event listening /v2/events/listen), outside Express.
  const server = app.getHttpServer() as Server;
  app.get(LiveSockets).attach(server);
  // The sandbox base, told apart before any route or socket sees a request (after the sockets' attach).
  new SandboxRouting(settings.publicUrl, settings.sandboxUrl, settings.trustedProxies).attach(
    server,
  );
  // Idle keep-alive connections outlive clients' and load balancers' own idle timeouts
  // (undici 4 s, common proxies 60 s), so the client always closes first: with Node's
  // 5 s default a request sent as the server closes the socket fails with ECONNRESET.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  app.enableVersioning({ type: VersioningType.URI });
  app.useGlobalPipes(createValidationPipe());
  // SIGTERM/SIGINT only: SIGUSR2 and SIGHUP stay free for diagnostics (profilers, log rotation).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  collectProcessMetrics();
  watchTokenCache(app.get(VerifiedTokenCache));
  mountOpenApi(app, buildOpenApiDocument(app, settings), settings);
  return app;
}
