import { describe, expect, it } from 'vitest';
import { AppError } from '#common';
import { credentialHeadersOf } from './credentials.js';

describe('credentialHeadersOf', () => {
  it('reads one Authorization and one X-API-Key header, whatever their case', () => {
    expect(
      credentialHeadersOf(['host', 'x', 'AUTHORIZATION', 'Bearer t', 'x-Api-Key', 'sk_live_k']),
    ).toEqual({ authorization: 'Bearer t', apiKey: 'sk_live_k' });
    expect(credentialHeadersOf(['host', 'x'])).toEqual({
      authorization: undefined,
      apiKey: undefined,
    });
  });

  it.each([
    [['Authorization', 'Bearer a', 'authorization', 'Bearer b']],
    [['X-API-Key', 'sk_live_a', 'X-API-Key', 'sk_live_a']],
  ])('refuses a header sent twice (%j), even with the same value', (raw) => {
    let error: unknown;
    try {
      credentialHeadersOf(raw);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('UNAUTHORIZED');
  });
});
