import { describe, expect, it } from 'vitest';
import type { AppSettings } from '#config';
import { DestinationPolicy, bareHost, parseReceiverUrl } from './destination-policy.js';

function policy(privateAllowlist: string[] = []): DestinationPolicy {
  return new DestinationPolicy({ outbound: { privateAllowlist } } as unknown as AppSettings);
}

/** The address a receiver URL names, as the sender would connect to it. */
function literal(url: string): string {
  return bareHost(parseReceiverUrl(url));
}

describe('DestinationPolicy.refusal', () => {
  it.each(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '2a00:1450:4001:80b::200e'])(
    'lets the public address %s be reached',
    (address) => {
      expect(policy().refusal('example.com', address)).toBeNull();
    },
  );

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['2001::1', 'teredo'],
    // IPv4-compatible (deprecated), as the URL parser writes [::127.0.0.1], and unallocated space.
    ['::7f00:1', 'non-global'],
    ['::a00:1', 'non-global'],
    ['4000::1', 'non-global'],
  ])('refuses %s (%s)', (address, range) => {
    expect(policy().refusedRange('example.com', address)).toBe(range);
    expect(policy().refusal('example.com', address)).not.toBeNull();
  });

  it('tells callers only that the destination is not allowed, never the address or its kind', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '169.254.169.254', 'fd00::1']) {
      const refusal = policy().refusal('internal.example.com', address)!;
      expect(refusal).toBe('the destination is not allowed: only public addresses may be reached');
      expect(refusal).not.toContain(address);
    }
  });

  it('reads IPv6 literals of URLs as the sender will connect to them', () => {
    expect(literal('https://[::127.0.0.1]/hook')).toBe('::7f00:1');
    expect(policy().refusal('::7f00:1', literal('https://[::127.0.0.1]/hook'))).not.toBeNull();
    expect(
      policy().refusal('::ffff:7f00:1', literal('https://[::ffff:127.0.0.1]/')),
    ).not.toBeNull();
  });

  it('lets through what the allow-list names: hosts, addresses and ranges', () => {
    const allowing = policy(['hooks.internal', '10.20.0.0/16', '127.0.0.1']);
    expect(allowing.refusal('hooks.internal', '10.9.9.9')).toBeNull();
    expect(allowing.refusal('other', '10.20.3.4')).toBeNull();
    expect(allowing.refusal('other', '127.0.0.1')).toBeNull();
    expect(allowing.refusedRange('other', '10.21.0.1')).toBe('private');
  });

  it('says which hosts the operator allow-listed: by name, address or range', () => {
    const allowing = policy(['directory.internal', '10.20.0.0/16', '127.0.0.1']);
    expect(allowing.isAllowListed('directory.internal')).toBe(true);
    expect(allowing.isAllowListed('DIRECTORY.internal')).toBe(true);
    expect(allowing.isAllowListed('10.20.9.9')).toBe(true);
    expect(allowing.isAllowListed('127.0.0.1')).toBe(true);
    expect(allowing.isAllowListed('10.21.0.1')).toBe(false);
    expect(allowing.isAllowListed('ldap.example.com')).toBe(false);
    expect(allowing.isAllowListed('[::1]')).toBe(false);
  });
});

describe('DestinationPolicy.lookup', () => {
  /** What the resolver hook answers for `host` (address literals resolve without a network). */
  function resolve(host: string, family?: number | string) {
    return new Promise<{ error: string | null; address: unknown; family?: number }>((done) =>
      policy(['127.0.0.1', '::1']).lookup(host, { family }, (error, address, resolved) =>
        done({ error: error?.code ?? null, address, family: resolved }),
      ),
    );
  }

  it('answers only the family a socket bound to a source address asks for', async () => {
    expect(await resolve('127.0.0.1')).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect(await resolve('127.0.0.1', 4)).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect(await resolve('::1', 'IPv6')).toEqual({ error: null, address: '::1', family: 6 });
    expect(await resolve('127.0.0.1', 6)).toMatchObject({ error: 'EADDRFAMILY' });
    expect(await resolve('::1', 'IPv4')).toMatchObject({ error: 'EADDRFAMILY' });
  });

  it('refuses a destination the policy refuses before looking at its family', async () => {
    expect(await resolve('10.1.2.3', 6)).toMatchObject({ error: 'EREFUSEDDEST' });
  });
});
