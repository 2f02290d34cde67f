import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { ERROR_SERIALIZERS } from '#common';
import type { LogLevel } from '#config';
import { loggedUrl } from './logged-url.js';
import type { ApiRequest } from './request-context.js';

/** Levels at which pino-http writes its per-request access line. */
const ACCESS_LOG_LEVELS: LogLevel[] = ['info', 'debug', 'trace'];

/**
 * JSON logs with the request id. Requests are logged as id, method and URL
 * only: headers never reach the logs, so credentials and cookies cannot, and
 * the URL's credentials and free text are redacted (logged-url.ts). Above
 * `info` no access line is written, so the per-request middleware is not
 * mounted at all (it costs about a tenth of a request's CPU even when silent);
 * errors are still logged with their request id by the exception filter.
 */
export function loggerOptions(level: LogLevel): Params {
  return {
    // No routes at all rather than every route excluded: an exclusion is still a middleware
    // Express passes each request through, to be told to skip it.
    ...(ACCESS_LOG_LEVELS.includes(level) ? {} : { forRoutes: [] }),
    pinoHttp: {
      level,
      genReqId: (request) => (request as unknown as ApiRequest).id,
      quietReqLogger: true,
      serializers: {
        ...ERROR_SERIALIZERS,
        req: (request: IncomingMessage & { id?: string }) => ({
          id: request.id,
          method: request.method,
          url: loggedUrl(request.url),
        }),
        res: (response: ServerResponse) => ({ statusCode: response.statusCode }),
      },
      customProps: (request) => {
        const { principal, sandbox } = request as unknown as ApiRequest;
        return {
          ...(principal ? { organizationId: principal.organizationId, mode: principal.mode } : {}),
          // Asked at the sandbox base: `url` is the path it was served by.
          ...(sandbox ? { sandbox } : {}),
        };
      },
      autoLogging: {
        ignore: (request) => request.url === '/health/live' || request.url === '/metrics',
      },
    },
  };
}
