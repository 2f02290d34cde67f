import { describe, expect, it } from 'vitest';
import { quietStartup } from './quiet-startup-logger.js';

describe('quietStartup', () => {
  it("sends Nest's start-up lines to debug and everything else where it was going", () => {
    const calls: [string, unknown[]][] = [];
    const record =
      (level: string) =>
      (...args: unknown[]) =>
        calls.push([level, args]);
    const logger = quietStartup({
      log: record('log'),
      error: record('error'),
      warn: record('warn'),
      debug: record('debug'),
    });
    logger.log('Mapped {/v1/sessions, GET} route', 'RouterExplorer');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log({ url: 'http://localhost:3000' }, 'API listening', 'Api');
    logger.warn('careful', 'SigningKeyService');
    expect(calls.map(([level]) => level)).toEqual(['debug', 'debug', 'log', 'warn']);
    expect(calls[2]![1]).toEqual([{ url: 'http://localhost:3000' }, 'API listening', 'Api']);
  });
});
