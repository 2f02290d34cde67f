import { describe, expect, it } from 'vitest';
import { checkedApiUrl } from './api-url.js';
import { UsageError } from './exit-codes.js';

describe('checkedApiUrl', () => {
  it('takes https anywhere and plain http to this machine', () => {
    for (const url of [
      'https://api.example.com',
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://[::1]:3000',
      'http://api.localhost',
    ]) {
      expect(checkedApiUrl(url)).toBe(url);
    }
  });

  it('refuses plain http to another host unless --insecure, saying why', () => {
    expect(() => checkedApiUrl('http://api.example.com')).toThrow(UsageError);
    expect(() => checkedApiUrl('http://10.0.0.5:3000')).toThrow(
      /refusing plain http to 10\.0\.0\.5:3000.*--insecure/s,
    );
    expect(checkedApiUrl('http://api.example.com', true)).toBe('http://api.example.com');
  });

  it('refuses what is not an http(s) URL', () => {
    expect(() => checkedApiUrl('ftp://api.example.com')).toThrow(UsageError);
    expect(() => checkedApiUrl('api.example.com')).toThrow(/is not a URL/);
  });
});
