import express, { type Request } from 'express';
import { describe, expect, it } from 'vitest';
import { dropUntrustedForwardingHeaders } from './authorization-server.js';

function requestFrom(remoteAddress: string): Request {
  const app = express();
  app.set('trust proxy', 'loopback');
  return {
    app,
    socket: { remoteAddress },
    headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', host: 'api' },
  } as unknown as Request;
}

describe('forwarding headers reaching the authorization server', () => {
  it('are kept from a trusted (loopback) proxy', () => {
    const request = requestFrom('127.0.0.1');
    dropUntrustedForwardingHeaders(request);
    expect(request.headers['x-forwarded-host']).toBe('evil.example');
  });

  it('are dropped from anyone else', () => {
    const request = requestFrom('203.0.113.9');
    dropUntrustedForwardingHeaders(request);
    expect(request.headers).toEqual({ host: 'api' });
  });
});
