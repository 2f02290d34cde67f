import { BadRequestException, Logger, NotFoundException } from '@nestjs/common';
import type { Request } from 'express';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QueryFailedError } from 'typeorm';
import { AppError } from '#common';
import { isDependencyUnavailable, toAppError } from './error-translation.js';

const request = {
  method: 'GET',
  path: '/v1/x',
  app: { router: { stack: [] } },
  id: 'req_test',
} as unknown as Request;

/** What the translation logs, kept here instead of printed (the run stays quiet). */
let logged: { level: string; args: unknown[] }[] = [];
beforeEach(() => {
  logged = [];
  for (const level of ['error', 'warn'] as const) {
    vi.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
      logged.push({ level, args });
    });
  }
});
afterEach(() => vi.restoreAllMocks());

describe('toAppError', () => {
  it('hides the internals of an unexpected error behind INTERNAL_ERROR', () => {
    const error = toAppError(new Error('password=hunter2 at /srv/app/db.ts:12'), request);
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).toBe('An unexpected error occurred');
    expect(JSON.stringify(error.details)).not.toContain('hunter2');
    // The cause goes to the log, with the request it failed.
    expect(logged).toEqual([
      {
        level: 'error',
        args: [expect.objectContaining({ requestId: 'req_test' }), 'unhandled error'],
      },
    ]);
  });

  it('keeps AppErrors as they are', () => {
    const original = AppError.invalid('target', 'is required');
    expect(toAppError(original, request)).toBe(original);
  });

  it('turns body-parser errors into client errors, never 500', () => {
    expect(toAppError({ type: 'entity.parse.failed', status: 400 }, request).code).toBe(
      'INVALID_REQUEST',
    );
    expect(toAppError({ type: 'entity.too.large', status: 413, limit: 10 }, request).code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(toAppError({ type: 'charset.unsupported', status: 415 }, request).code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('maps an unmatched route to NOT_FOUND and other Nest 4xx exceptions by status', () => {
    expect(toAppError(new NotFoundException(), request).code).toBe('NOT_FOUND');
    expect(toAppError(new BadRequestException('bad'), request).code).toBe('INVALID_REQUEST');
  });
});

describe('a dependency that cannot be reached', () => {
  const sqlState = (code: string) =>
    new QueryFailedError('SELECT 1', [], Object.assign(new Error('server says no'), { code }));

  it('is told apart from a failure of the request, through whatever wraps it', () => {
    const unavailable = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new AggregateError([Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })]),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('query failed', {
        cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
      }),
      sqlState('08006'),
      sqlState('57P01'),
      sqlState('57P03'),
      sqlState('53300'),
    ];
    for (const error of unavailable)
      expect(isDependencyUnavailable(error), error.message).toBe(true);
    for (const error of [sqlState('23505'), sqlState('22P02'), new Error('boom'), 'ECONNREFUSED']) {
      expect(isDependencyUnavailable(error)).toBe(false);
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After and nothing of the cause', () => {
    const error = toAppError(sqlState('57P01'), request);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.headers).toEqual({ 'Retry-After': '5' });
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(
      /server says no|57P01/,
    );
    expect(logged.map((entry) => entry.level)).toEqual(expect.arrayContaining(['warn']));
  });
});
