import { describe, expect, it } from 'vitest';
import type { AppSettings } from '#config';
import { DestinationPolicy } from './destination-policy.js';
import { OutboundFetcher, parseFetchUrl } from './outbound-fetcher.js';

const settings = {
  outbound: { extraCaPem: null, privateAllowlist: [] },
} as unknown as AppSettings;

describe('parseFetchUrl', () => {
  it('takes absolute https:// URLs and drops their fragment', () => {
    expect(String(parseFetchUrl('https://example.com/a.pdf#page=2'))).toBe(
      'https://example.com/a.pdf',
    );
  });

  it.each([
    ['http://example.com/a.jpg', 'must use https://'],
    ['ftp://example.com/a.jpg', 'must use https://'],
    ['/a.jpg', 'is not an absolute URL'],
    ['https://user:secret@example.com/a.jpg', 'must not contain credentials'],
    [`https://example.com/${'a'.repeat(2048)}`, 'is longer than 2048 characters'],
  ])('says what is wrong with %s', (url, problem) => {
    expect(parseFetchUrl(url)).toBe(problem);
  });
});

describe('OutboundFetcher', () => {
  const fetcher = new OutboundFetcher(settings, new DestinationPolicy(settings));
  const options = { maxBytes: 1024, timeoutMs: 1000 };

  it.each([
    ['https://127.0.0.1/a.jpg', 'the destination is not allowed'],
    ['https://[::1]/a.jpg', 'the destination is not allowed'],
    ['https://10.0.0.1/a.jpg', 'the destination is not allowed'],
    ['http://example.com/a.jpg', 'the URL must use https://'],
  ])('refuses %s without connecting', async (url, error) => {
    const result = await fetcher.fetch(url, options);
    expect(result).toEqual({ ok: false, error: expect.stringContaining(error) });
  });

  it('answers a cancelled fetch with a failure, not an exception', async () => {
    const result = await fetcher.fetch('https://example.invalid/a.jpg', {
      ...options,
      signal: AbortSignal.abort(),
    });
    expect(result).toEqual({ ok: false, error: 'the fetch was cancelled' });
  });
});
