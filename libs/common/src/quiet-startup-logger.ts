import type { LoggerService } from '@nestjs/common';

/**
 * Nest's own start-up lines: a line per module (InstanceLoader), per
 * controller (RoutesResolver) and per route (RouterExplorer), 300 and more
 * before the one that says the API listens. They go to debug, where they
 * still are for whoever wants them (LOG_LEVEL=debug).
 */
const START_UP_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/** `logger`, with Nest's start-up chatter at debug rather than info. */
export function quietStartup(logger: LoggerService): LoggerService {
  return {
    log: (message: unknown, ...params: unknown[]) =>
      START_UP_CONTEXTS.has(String(params.at(-1)))
        ? logger.debug?.(message, ...params)
        : logger.log(message, ...params),
    error: (message: unknown, ...params: unknown[]) => logger.error(message, ...params),
    warn: (message: unknown, ...params: unknown[]) => logger.warn(message, ...params),
    debug: (message: unknown, ...params: unknown[]) => logger.debug?.(message, ...params),
    verbose: (message: unknown, ...params: unknown[]) => logger.verbose?.(message, ...params),
    fatal: (message: unknown, ...params: unknown[]) => logger.fatal?.(message, ...params),
  };
}
