import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promisify } from 'node:util';
import { isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppError } from '#common';
import { AppSettings } from '#config';

const MAX_URL_LENGTH = 2048;
const lookupAll = promisify(dnsLookup);

/** Checks the form of a webhook receiver URL; throws INVALID_REQUEST naming `url`. */
export function parseReceiverUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH) {
    throw AppError.invalid('url', `must be at most ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw AppError.invalid('url', 'must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:') throw AppError.invalid('url', 'must use https://');
  if (url.username || url.password) {
    throw AppError.invalid('url', 'must not contain credentials; authenticate with the signature');
  }
  if (url.hash) throw AppError.invalid('url', 'must not contain a fragment');
  return url;
}

/** The host of a URL as a resolver and `isIP` want it (IPv6 literals without brackets). */
export function bareHost(url: URL): string {
  return unbracketed(url.hostname);
}

/** A host as written in a URL or by a library (`[::1]`), as a resolver wants it (`::1`). */
export function unbracketed(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** What a caller is told of a refused destination, wherever it was refused. */
export const REFUSED_DESTINATION =
  'the destination is not allowed: only public addresses may be reached';

/** The socket error of a refused destination (`EREFUSEDDEST`), as the resolver hook reports it. */
export function refusedDestinationError(): NodeJS.ErrnoException {
  return Object.assign(new Error(REFUSED_DESTINATION), { code: 'EREFUSEDDEST' });
}

/**
 * The socket error of a destination with no address of the family the
 * connection must leave from (`EADDRFAMILY`): a socket bound to an IPv4 source
 * address cannot reach an IPv6 one, nor the reverse.
 */
export function addressFamilyError(
  destinationFamily: number | null,
  sourceFamily: number,
): NodeJS.ErrnoException {
  const message =
    destinationFamily === null
      ? `the host has no IPv${sourceFamily} address, and connections leave from IPv${sourceFamily} source addresses`
      : `the host is an IPv${destinationFamily} address, and connections leave from IPv${sourceFamily} source addresses`;
  return Object.assign(new Error(message), { code: 'EADDRFAMILY' });
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * ipaddr.js calls every IPv6 address outside its special ranges `unicast`,
 * including the deprecated IPv4-compatible ones (`::7f00:1`, which the URL
 * parser makes of `[::127.0.0.1]`) and unallocated space. Public IPv6
 * addresses are global unicast (2000::/3) only.
 */
function isGlobalUnicast(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv4') return true;
  return address.match(GLOBAL_UNICAST_V6);
}

/**
 * Where the service may connect outward (webhook deliveries, reference
 * material): public unicast addresses only, unless the host or the address is
 * on OUTBOUND_PRIVATE_ALLOWLIST. Checked when a webhook endpoint is registered
 * and again on every connection (the resolver hook below), so a name that
 * later resolves to an internal address (DNS rebinding) is refused.
 */
@Injectable()
export class DestinationPolicy {
  private readonly hosts: Set<string>;
  private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  constructor(settings: AppSettings) {
    const entries = settings.outbound.privateAllowlist;
    this.hosts = new Set(entries.filter((entry) => !entry.includes('/')));
    this.ranges = entries
      .filter((entry) => entry.includes('/'))
      .map((entry) => ipaddr.parseCIDR(entry));
  }

  /**
   * Null when the address may be reached from `host`, else what callers are
   * told: never the address or its kind, which would map the internal
   * network for whoever asked (a name that resolves to 10.0.0.1, say).
   */
  refusal(host: string, address: string): string | null {
    return this.refusedRange(host, address) === null ? null : REFUSED_DESTINATION;
  }

  /** Null when allowed, else the address's kind (`loopback`, `private`, …): for tests and logs. */
  refusedRange(host: string, address: string): string | null {
    if (this.hosts.has(host.toLowerCase()) || this.hosts.has(address)) return null;
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.parse(address);
    } catch {
      return 'invalid';
    }
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    }
    const range = parsed.range();
    if (range === 'unicast' && isGlobalUnicast(parsed)) return null;
    if (this.inAllowedRange(parsed)) return null;
    return range === 'unicast' ? 'non-global' : range;
  }

  /**
   * Whether the operator named this host on OUTBOUND_PRIVATE_ALLOWLIST (by
   * name, or as an address or within a range): a destination they vouch for,
   * such as a directory that only speaks plain LDAP on their own network.
   */
  isAllowListed(host: string): boolean {
    const bare = unbracketed(host).toLowerCase();
    if (this.hosts.has(bare)) return true;
    return ipaddr.isValid(bare) && this.inAllowedRange(ipaddr.parse(bare));
  }

  private inAllowedRange(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.ranges.some(
      ([net, bits]) => net.kind() === address.kind() && address.match(net, bits),
    );
  }

  /** Resolves the URL's host and refuses it when any address is not allowed (registration time). */
  async assertReachable(url: URL, field = 'url'): Promise<void> {
    const host = bareHost(url);
    let addresses: LookupAddress[];
    if (isIP(host)) {
      addresses = [{ address: host, family: isIP(host) }];
    } else {
      try {
        addresses = await lookupAll(host, { all: true });
      } catch {
        throw AppError.invalid(field, `the host ${host} does not resolve`);
      }
    }
    for (const { address } of addresses) {
      const refusal = this.refusal(host, address);
      if (refusal !== null) throw AppError.invalid(field, refusal);
    }
  }

  /**
   * A `dns.lookup` replacement for the HTTP client: resolves, then keeps only
   * allowed addresses, so the socket can only ever connect to one of them; of
   * those, only the family asked for, if any (a socket bound to a local address).
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const allowed = addresses.filter(({ address }) => this.refusal(hostname, address) === null);
      if (allowed.length === 0) return callback(refusedDestinationError(), []);
      const family = dnsFamily(options.family);
      const usable = family === 0 ? allowed : allowed.filter((entry) => entry.family === family);
      if (usable.length === 0) return callback(addressFamilyError(null, family), []);
      if (options.all) return callback(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/** 4, 6, or 0 (any) from the `family` of a lookup's options (a number, or `IPv4`/`IPv6`). */
function dnsFamily(family: number | string | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}
