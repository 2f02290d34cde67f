import type { Params } from 'nestjs-pino';
import type { LogLevel } from '#config';
import type { ApiRequest } from './request-context.js';

/** JSON logs with the request id; credentials and cookies never reach them. */
export function loggerOptions(level: LogLevel): Params {
  return {
    pinoHttp: {
      level,
      genReqId: (request) => (request as unknown as ApiRequest).id,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
      customProps: (request) => {
        const principal = (request as unknown as ApiRequest).principal;
        return principal ? { organizationId: principal.organizationId, mode: principal.mode } : {};
      },
      autoLogging: {
        ignore: (request) => request.url === '/health/live' || request.url === '/metrics',
      },
    },
  };
}
