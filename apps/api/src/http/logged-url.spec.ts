import { describe, expect, it } from 'vitest';
import { loggedUrl } from './logged-url.js';

describe('loggedUrl', () => {
  it('redacts an invitation token and an interaction uid from the path', () => {
    expect(loggedUrl('/invitations/inv_s3cr3tT0ken')).toBe('/invitations/[redacted]');
    expect(loggedUrl('/Invitations/inv_s3cr3tT0ken?x=1')).toBe(
      '/Invitations/[redacted]?x=[redacted]',
    );
    expect(loggedUrl('/oauth2/interaction/Abc123/login')).toBe(
      '/oauth2/interaction/[redacted]/login',
    );
  });

  it('keeps paths of ids as they are', () => {
    expect(loggedUrl('/v2/sessions/sess_01m82sfbpbenftg57hv349pfkd')).toBe(
      '/v2/sessions/sess_01m82sfbpbenftg57hv349pfkd',
    );
    expect(loggedUrl('/v2/analysts/invitations')).toBe('/v2/analysts/invitations');
  });

  it('redacts free-text and unknown query values, keeping their names', () => {
    expect(loggedUrl('/v2/history?q=my%20secret%20search&limit=20&type=dowsing')).toBe(
      '/v2/history?q=[redacted]&limit=20&type=dowsing',
    );
    expect(loggedUrl('/v2/dowsing?question=where+is+it&query=x&search=y')).toBe(
      '/v2/dowsing?question=[redacted]&query=[redacted]&search=[redacted]',
    );
    expect(loggedUrl('/dashboard/callback?code=abc&state=xyz&error=access_denied')).toBe(
      '/dashboard/callback?code=[redacted]&state=[redacted]&error=access_denied',
    );
    expect(loggedUrl('/v2/sessions?cursor=eyJ0YXJnZXQiOiJzZWNyZXQifQ&status=completed')).toBe(
      '/v2/sessions?cursor=[redacted]&status=completed',
    );
  });

  it('redacts a query parameter name that is itself typed text, and a bare value', () => {
    expect(loggedUrl('/v2/history?my%20password%3Dhunter2')).toBe('/v2/history?[redacted]');
    expect(loggedUrl('/v2/history?my%20password=x')).toBe('/v2/history?[redacted]=[redacted]');
    expect(loggedUrl('/v1/sessions?')).toBe('/v1/sessions?');
    expect(loggedUrl(undefined)).toBeUndefined();
  });
});
