import { describe, expect, it } from 'vitest';
import { claimsInListedOrder, newClaims, verificationRecord } from './domain-claims.js';

describe('domain claims', () => {
  it('answers each connection its claims in the order it lists its domains', () => {
    const claims = [
      { connectionId: 'b', domain: 'b.example', status: 'verified' as const, token: 't3' },
      { connectionId: 'a', domain: 'two.example', status: 'pending' as const, token: 't2' },
      { connectionId: 'a', domain: 'one.example', status: 'verified' as const, token: 't1' },
    ];
    const byConnection = claimsInListedOrder(
      [
        { id: 'a', emailDomains: ['one.example', 'two.example', 'unclaimed.example'] },
        { id: 'c', emailDomains: ['c.example'] },
      ],
      claims,
    );
    expect(byConnection.get('a')).toEqual([
      { domain: 'one.example', status: 'verified', token: 't1' },
      { domain: 'two.example', status: 'pending', token: 't2' },
    ]);
    expect(byConnection.get('c')).toEqual([]);
    expect(byConnection.has('b')).toBe(false);
  });

  it('gives every new claim a token of its own', () => {
    const [first, second] = newClaims(['one.example', 'two.example']);
    expect(first!.domain).toBe('one.example');
    expect(first!.token).toMatch(/^[0-9a-f]{32}$/);
    expect(second!.token).not.toBe(first!.token);
  });

  it('names the TXT record that proves a claim', () => {
    expect(verificationRecord({ domain: 'corp.example', token: 'abc' })).toEqual({
      name: '_sas-verification.corp.example',
      value: 'sas-verification=abc',
    });
  });
});
