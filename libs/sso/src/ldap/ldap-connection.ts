import * as net from 'node:net';
import * as tls from 'node:tls';
import type { Client } from 'ldapts';
import { bareHost, type OutboundSockets } from '#outbound';
import { ldapLibrary } from '../libraries.js';
import { isTimeout, LdapSignInError, toLdapSignInError } from './ldap-errors.js';
import type { LdapSettings } from './ldap-settings.js';

/** ldapts waits forever by default; a directory gets this long to connect and per operation. */
export const LDAP_TIMEOUT_MS = 5_000;

/** How far an opened connection got: what `test()` reports as its steps. */
export interface ConnectionProgress {
  connected: boolean;
  /** True once TLS is up (ldaps:// handshake or StartTLS); stays false for plain LDAP. */
  secured: boolean;
}

/** Whether these settings encrypt the connection (ldaps:// or StartTLS). */
export function usesTls(settings: LdapSettings): boolean {
  return settings.url.startsWith('ldaps:') || settings.startTls;
}

/**
 * A connected, authenticated ldapts client. For StartTLS, the upgrade happens before
 * the bind (ldapts does not redo a bind after StartTLS) and a failed upgrade fails
 * here with `tls_failed`: the password is never sent over plain text.
 */
export async function openBoundConnection(
  settings: LdapSettings,
  sockets: OutboundSockets,
  bind: { dn: string; password: string; as: 'service bind' | 'user bind' },
  progress: ConnectionProgress = { connected: false, secured: false },
  timeoutMs = LDAP_TIMEOUT_MS,
): Promise<Client> {
  if (bind.password === '') {
    // An empty password is an unauthenticated bind (RFC 4513 §5.1.2) that "succeeds".
    throw new LdapSignInError('invalid_credentials', 'an empty password is never accepted');
  }
  const url = new URL(settings.url);
  const host = bareHost(url);
  const secure = url.protocol === 'ldaps:';
  const tlsOptions = tlsOptionsFor(settings, host);
  const onTcpConnect = () => (progress.connected = true);
  const onSecured = () => (progress.secured = true);
  // ldapts silently reconnects a client whose socket closed, unencrypted and unbound even
  // after StartTLS. One socket per client: a lost connection fails, the pool drops it.
  let socketsOpened = 0;
  const firstSocketOnly = () => {
    if (++socketsOpened > 1) throw new Error('the directory connection was lost');
  };
  const client: Client = new (ldapLibrary().Client)({
    url: settings.url,
    timeout: timeoutMs,
    connectTimeout: timeoutMs,
    // ldapts treats any tlsOptions as "connect with TLS": only for ldaps://, StartTLS gets them later.
    ...(secure ? { tlsOptions } : {}),
    // Every socket through the destination policy: a directory is a tenant-named destination.
    createConnection: ((port: number, hostname: string) => {
      firstSocketOnly();
      return sockets.tcp(hostname, port).once('connect', onTcpConnect);
    }) as typeof net.connect,
    // ldapts calls it as (port, host, options) for ldaps:// and ({ socket, … }) for StartTLS.
    createSecureConnection: ((...args: unknown[]) => {
      const first = args[0] as tls.ConnectionOptions | number;
      const socket =
        typeof first === 'object' && first.socket !== undefined
          ? sockets.upgrade(first.socket as net.Socket, first)
          : (firstSocketOnly(),
            sockets.tls(args[1] as string, args[0] as number, args[2] as tls.ConnectionOptions));
      return socket.once('connect', onTcpConnect).once('secureConnect', onSecured);
    }) as typeof tls.connect,
  });
  // Which phase failed decides the code: no TCP → unavailable; TCP but no TLS → tls_failed
  // (unless it timed out: a silent server is unavailable); after that, what the bind says.
  const classify = (error: unknown, operation: 'service bind' | 'user bind'): LdapSignInError => {
    if (error instanceof LdapSignInError) return error;
    if (!progress.connected) return toLdapSignInError(error, 'connect');
    if (usesTls(settings) && !progress.secured && !isTimeout(error)) {
      const what = secure
        ? 'TLS with the directory failed'
        : 'StartTLS failed (nothing was sent in plain text)';
      return new LdapSignInError('tls_failed', `${what}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    return toLdapSignInError(error, progress.secured || !usesTls(settings) ? operation : 'connect');
  };
  try {
    if (settings.startTls && !secure) {
      await withDeadline(client.startTLS(tlsOptions), timeoutMs, 'StartTLS');
    }
    await client.bind(bind.dn, bind.password);
    return client;
  } catch (error) {
    await closeQuietly(client);
    throw classify(error, bind.as);
  }
}

/** Unbinds, or gives up after a moment: a hung directory must not hang the caller. */
export async function closeQuietly(client: Client): Promise<void> {
  await withDeadline(client.unbind(), 1_000, 'unbind').catch(() => undefined);
}

/**
 * Certificate verification is always on; the configured CA replaces Node's roots
 * (a private directory CA should not widen to every public CA), TLS 1.2 at least.
 */
function tlsOptionsFor(settings: LdapSettings, host: string): tls.ConnectionOptions {
  return {
    host,
    ...(net.isIP(host) === 0 ? { servername: host } : {}),
    ...(settings.caCertificate !== null ? { ca: [settings.caCertificate] } : {}),
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
  };
}

/** Rejects when `promise` has not settled within `ms` (a TLS handshake has no ldapts timeout). */
function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  promise.catch(() => undefined); // it may still fail after the deadline won
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
