import * as net from 'node:net';
import * as tls from 'node:tls';
import { Injectable } from '@nestjs/common';
import { DestinationPolicy, refusedDestinationError, unbracketed } from './destination-policy.js';

/**
 * Raw sockets outward for client libraries that open their own (ldapts for
 * LDAP directories), under the same destination policy as every HTTP
 * request: a name is resolved through the policy's lookup, so only an
 * allowed address is ever connected to, and an address literal is checked
 * before any packet leaves. Libraries want a socket back at once, so a
 * refused destination is a socket that fails with `EREFUSEDDEST` instead.
 */
@Injectable()
export class OutboundSockets {
  constructor(private readonly policy: DestinationPolicy) {}

  /** A TCP connection to `host:port`. */
  tcp(host: string, port: number): net.Socket {
    const bare = unbracketed(host);
    if (this.refusesLiteral(bare)) return failing(new net.Socket());
    return net.connect({ host: bare, port, lookup: this.policy.lookup });
  }

  /** A TLS connection to `host:port`, with the caller's TLS options (certificates, names). */
  tls(host: string, port: number, options: tls.ConnectionOptions = {}): tls.TLSSocket {
    const bare = unbracketed(host);
    if (this.refusesLiteral(bare)) return failing(new tls.TLSSocket(new net.Socket()));
    return tls.connect({ ...options, host: bare, port, lookup: this.policy.lookup });
  }

  /**
   * TLS over a socket this class opened (StartTLS): no new destination, so
   * nothing new to check, but the only way to a TLS socket outside this lib.
   */
  upgrade(socket: net.Socket, options: tls.ConnectionOptions = {}): tls.TLSSocket {
    return tls.connect({ ...options, socket });
  }

  private refusesLiteral(host: string): boolean {
    return net.isIP(host) !== 0 && this.policy.refusal(host, host) !== null;
  }
}

/**
 * The socket fails on the next turn, once its owner has had a chance to
 * listen for errors. Until then it reads as connecting, as a socket from
 * `net.connect` would: an idle one looks established to libraries that
 * accept ready-made sockets (ldapts would write its first request to it).
 */
function failing<T extends net.Socket>(socket: T): T {
  (socket as { connecting: boolean }).connecting = true;
  setImmediate(() => socket.destroy(refusedDestinationError()));
  return socket;
}
