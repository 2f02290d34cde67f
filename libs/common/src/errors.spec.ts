import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, ERROR_HELP, httpStatusOf } from './errors.js';

describe('error codes', () => {
  it('map to the statuses of the spec', () => {
    expect(httpStatusOf('INVALID_REQUEST')).toBe(400);
    expect(httpStatusOf('VALIDATION_ERROR')).toBe(400);
    expect(httpStatusOf('UNAUTHORIZED')).toBe(401);
    expect(httpStatusOf('FORBIDDEN')).toBe(403);
    expect(httpStatusOf('NOT_FOUND')).toBe(404);
    expect(httpStatusOf('UPGRADE_REQUIRED')).toBe(426);
    expect(httpStatusOf('RATE_LIMITED')).toBe(429);
    expect(httpStatusOf('INTERNAL_ERROR')).toBe(500);
    expect(httpStatusOf('SERVICE_UNAVAILABLE')).toBe(503);
  });

  it('each have a help text', () => {
    for (const code of ERROR_CODES) expect(ERROR_HELP[code].length).toBeGreaterThan(10);
  });

  it('carry the field and issue of an invalid request', () => {
    const error = AppError.invalid('target', 'is required');
    expect(error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'target', issue: 'is required' },
    });
    expect(error.details).not.toHaveProperty('suggested_value');
    expect(AppError.invalid('duration_minutes', 'too long', 180).details.suggested_value).toBe(180);
  });

  it('name where the credential was looked for in a 401', () => {
    expect(AppError.unauthorized('no credential').details).toEqual({
      field: 'Authorization',
      issue: 'no credential',
    });
    expect(AppError.unauthorized('unknown API key', 'X-API-Key').details.field).toBe('X-API-Key');
  });

  it('name the missing scopes in a 403 and its challenge', () => {
    const error = AppError.forbidden(['remote-viewing:write']);
    expect(error.details.field).toBe('scope');
    expect(error.details.required_scopes).toEqual(['remote-viewing:write']);
    expect(error.headers['WWW-Authenticate']).toContain('insufficient_scope');
  });
});
