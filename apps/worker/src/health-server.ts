import { createServer, type Server } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { collectDefaultMetrics, register } from 'prom-client';
import { Sql } from '#database';
import { RedisService } from '#queue';

/**
 * The worker's optional listener (WORKER_HEALTH_PORT): /health/live,
 * /health/ready (PostgreSQL and Redis answer) and /metrics. Nothing else.
 */
export function startHealthServer(worker: INestApplicationContext, port: number): Server {
  collectDefaultMetrics();
  const sql = worker.get(Sql);
  const redis = worker.get(RedisService);
  const server = createServer((request, response) => {
    const send = (status: number, body: string, type = 'application/json') => {
      response.writeHead(status, { 'Content-Type': type }).end(body);
    };
    switch (request.url) {
      case '/health/live':
        return send(200, '{"status":"ok"}');
      case '/health/ready':
        Promise.all([sql.ping(), redis.client.ping()])
          .then(() => send(200, '{"status":"ok"}'))
          .catch(() => send(503, '{"status":"error"}'));
        return;
      case '/metrics':
        register
          .metrics()
          .then((text) => send(200, text, register.contentType))
          .catch(() => send(500, '{"status":"error"}'));
        return;
      default:
        send(404, '{"status":"not_found"}');
    }
  });
  server.listen(port, '0.0.0.0');
  return server;
}
