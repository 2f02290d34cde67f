import { BadRequestException, NotFoundException } from '@nestjs/common';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { AppError } from '#common';
import { toAppError } from './error-translation.js';

const request = {
  method: 'GET',
  path: '/v1/x',
  app: { router: { stack: [] } },
  id: 'req_test',
} as unknown as Request;

describe('toAppError', () => {
  it('hides the internals of an unexpected error behind INTERNAL_ERROR', () => {
    const error = toAppError(new Error('password=hunter2 at /srv/app/db.ts:12'), request);
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).toBe('An unexpected error occurred');
    expect(JSON.stringify(error.details)).not.toContain('hunter2');
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
