import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// The typed readers of settings.ts: each reads one variable, applies its default and bounds,
// and throws a SettingsError naming the variable when the value is wrong.

export class SettingsError extends Error {
  constructor(
    readonly setting: string,
    readonly problem: string,
  ) {
    super(`Invalid setting ${setting}: ${problem}`);
    this.name = 'SettingsError';
  }
}

export type Env = Record<string, string | undefined>;

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2 };

export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

export function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new SettingsError(name, `"${raw}" is not a whole number`);
  const value = Number(raw);
  if (value < min || value > max) {
    throw new SettingsError(name, `${value} is outside the allowed range ${min} to ${max}`);
  }
  return value;
}

export function url(
  env: Env,
  name: string,
  fallback: string | undefined,
  protocols: string[],
): string {
  const raw = text(env, name) ?? fallback;
  if (raw === undefined) {
    throw new SettingsError(name, 'is required');
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new SettingsError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new SettingsError(name, `must use one of ${protocols.join(', ')}`);
  }
  return raw;
}

export /** A comma-separated list of URLs (none when unset); an error names the entry's position, never its text. */
function urlList(env: Env, name: string, protocols: string[]): string[] {
  const entries = (text(env, name) ?? '').split(',').map((entry) => entry.trim());
  if (entries.length === 1 && entries[0] === '') return [];
  return entries.map((entry, index) => {
    // The entry itself may hold a password: name its position only.
    const where = `entry ${index + 1}`;
    if (entry === '') throw new SettingsError(name, `${where} is empty`);
    let parsed: URL;
    try {
      parsed = new URL(entry);
    } catch {
      throw new SettingsError(name, `${where} is not a valid URL`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new SettingsError(name, `${where} must use one of ${protocols.join(', ')}`);
    }
    return entry;
  });
}

export /** Bytes, or a size with a unit (`512kb`, `20mb`), between 1kb and `maxMb` megabytes. */
function byteSize(env: Env, name: string, fallback: number, maxMb = 64): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(raw);
  if (!match) throw new SettingsError(name, `"${raw}" is not a size such as 1048576, 512kb or 1mb`);
  const bytes = Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toLowerCase()]!;
  if (bytes < 1024 || bytes > maxMb * 1024 ** 2) {
    throw new SettingsError(name, `must be between 1kb and ${maxMb}mb`);
  }
  return bytes;
}

export function optionalPort(env: Env, name: string): number | null {
  return text(env, name) === undefined ? null : integer(env, name, 0, 1, 65535);
}

export function positiveNumber(env: Env, name: string, fallback: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d*\.?\d+(e-?\d+)?$/i.test(raw) || !(value > 0) || value > max) {
    throw new SettingsError(name, `"${raw}" is not a number greater than 0 and at most ${max}`);
  }
  return value;
}

export /**
 * The first of `names` that is set (not empty), so a renamed setting keeps
 * working under its old name: the new name wins when both are set, and errors
 * name the variable actually read. `names[0]` when none is set.
 */
function firstSet(env: Env, names: [string, ...string[]]): string {
  return names.find((name) => text(env, name) !== undefined) ?? names[0];
}

export function pemFile(env: Env, name: string): string | null {
  const path = text(env, name);
  if (path === undefined) return null;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SettingsError(name, `cannot read ${path}: ${(error as Error).message}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new SettingsError(name, `${path} holds no PEM certificate`);
  }
  return pem;
}

export function privateAllowlist(env: Env, name: string): string[] {
  const entries = (text(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const isCidr = entry.includes('/');
    if (isCidr ? !isValidCidr(entry) : !/^[a-z0-9.:-]+$/.test(entry)) {
      throw new SettingsError(
        name,
        `"${entry}" is neither a host name, an IP address nor a CIDR range`,
      );
    }
  }
  return entries;
}

/**
 * Local IP addresses outward connections are bound to, comma-separated (none
 * when unset): each must be an address of one family, IPv4 or IPv6, for a
 * socket of one family cannot be bound to the other's. Whether the host holds
 * them shows at the first connection (EADDRNOTAVAIL), not here.
 */
export function localAddresses(env: Env, name: string): string[] {
  const entries = (text(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const addresses = entries.map((entry) => {
    // Node's own test, which the socket's `localAddress` must pass (no `127.1` or zone ids).
    if (isIP(entry) === 0) {
      throw new SettingsError(name, `"${entry}" is not an IP address (e.g. 203.0.113.10)`);
    }
    const address = ipaddr.parse(entry);
    if (address.range() === 'unspecified') {
      throw new SettingsError(name, `"${entry}" is the unspecified address, not a local one`);
    }
    return address.toString(); // one spelling per address (IPv6 compressed, lower case)
  });
  if (new Set(addresses).size !== addresses.length) {
    throw new SettingsError(name, 'lists an address twice');
  }
  if (new Set(addresses.map((address) => isIP(address))).size > 1) {
    throw new SettingsError(
      name,
      'mixes IPv4 and IPv6 addresses: list addresses of the one family your receivers are reached over',
    );
  }
  return addresses;
}

/** Express's names for address ranges (proxy-addr's), usable in TRUSTED_PROXIES. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * The proxies whose X-Forwarded-For (and -Proto, -Host) are believed:
 * addresses, CIDR ranges and Express's names (`loopback`, `linklocal`,
 * `uniquelocal`), comma-separated; `loopback` when unset.
 */
export function trustedProxies(env: Env, name: string): string[] {
  const entries = (text(env, name) ?? 'loopback')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  if (entries.length === 0)
    throw new SettingsError(name, 'names no proxy (leave it unset for loopback)');
  for (const entry of entries) {
    const valid = PROXY_RANGE_NAMES.includes(entry)
      ? true
      : entry.includes('/')
        ? isValidCidr(entry)
        : ipaddr.isValid(entry);
    if (!valid) {
      throw new SettingsError(
        name,
        `"${entry}" is neither an IP address, a CIDR range nor one of ${PROXY_RANGE_NAMES.join(', ')}`,
      );
    }
  }
  return entries;
}

function isValidCidr(value: string): boolean {
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

export function choice<T extends string>(
  env: Env,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = (text(env, name) ?? fallback).toLowerCase();
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new SettingsError(name, `must be one of ${allowed.join(', ')}`);
  }
  return raw as T;
}
