import { isIP } from 'node:net';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { Agent, Pool, type Dispatcher } from 'undici';
import { AppSettings } from '#config';
import { addressFamilyError, DestinationPolicy, unbracketed } from './destination-policy.js';

export interface OutboundTimeouts {
  /** TCP and TLS handshake. */
  connectMs: number;
  /** From the request sent to the response's headers. */
  headersMs: number;
  /** Between two chunks of the body (an idle bound, not a bound on the whole body). */
  bodyMs: number;
}

/**
 * The one place that says how the service connects outward (webhook
 * deliveries, reference material): certificates always verified against
 * Node's roots plus OUTBOUND_EXTRA_CA_FILE, TLS 1.2 at least, and every
 * connection resolved through the destination policy, so a name that resolves
 * to a refused address is never connected to. Address literals never reach
 * the resolver: callers check them with `policy.refusal` before a request.
 */
export function createOutboundAgent(
  settings: AppSettings,
  policy: DestinationPolicy,
  timeouts: OutboundTimeouts,
): Agent {
  return new Agent(outboundOptions(settings, policy, timeouts));
}

/** Requests to one origin through kept-alive sockets (an undici Pool, or one per source address). */
export interface OutboundPool {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
}

/**
 * The same, for one origin: at most `connections` sockets, kept alive between
 * requests, one request at a time on each (no pipelining). Every new socket is
 * resolved through the destination policy like the agent's.
 *
 * With `sourceAddresses` (local addresses of one family, WEBHOOK_SOURCE_ADDRESSES
 * for webhooks), every socket is bound to one of them, and each request goes
 * from the next in turn: one pool per address, each binding its sockets to it
 * (`localAddress`) and resolving names to that family only, so requests one
 * after another leave from each address in turn whatever sockets are kept alive.
 */
export function createOutboundPool(
  origin: string,
  settings: AppSettings,
  policy: DestinationPolicy,
  timeouts: OutboundTimeouts,
  connections: number,
  sourceAddresses: readonly string[] = [],
): OutboundPool {
  const pool = (localAddress?: string) =>
    new Pool(origin, {
      ...outboundOptions(settings, policy, timeouts, localAddress),
      ...(localAddress ? { localAddress } : {}),
      connections,
      pipelining: 1,
    });
  if (sourceAddresses.length === 0) return pool();
  return new SourceAddressRotation(origin, sourceAddresses, pool);
}

/** One pool per source address, taken in turn. */
class SourceAddressRotation implements OutboundPool {
  private readonly pools: Pool[];
  /** Why nothing can be sent: the origin is an address of the other family. */
  private readonly wrongFamily: NodeJS.ErrnoException | null;
  private next = 0;

  constructor(
    origin: string,
    sourceAddresses: readonly string[],
    pool: (localAddress: string) => Pool,
  ) {
    const family = isIP(sourceAddresses[0]!);
    const host = unbracketed(new URL(origin).hostname);
    this.wrongFamily =
      isIP(host) !== 0 && isIP(host) !== family ? addressFamilyError(isIP(host), family) : null;
    this.pools = sourceAddresses.map(pool);
  }

  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    if (this.wrongFamily) return Promise.reject(this.wrongFamily);
    const pool = this.pools[this.next]!;
    this.next = (this.next + 1) % this.pools.length;
    return pool.request(options);
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.close()));
  }
}

/** The trust store with OUTBOUND_EXTRA_CA_FILE, per PEM: built once, not once per connection. */
const extraCaContexts = new Map<string, SecureContext>();

/**
 * Node's roots plus the extra CA as one secure context. Passing `ca` instead
 * would make every new TLS connection parse all the roots again, about 0.9 MB
 * of memory a connection until it is collected (bench/memory.mjs).
 */
function extraCaContext(pem: string): SecureContext {
  let context = extraCaContexts.get(pem);
  if (!context) {
    context = createSecureContext({ ca: [...rootCertificates, pem], minVersion: 'TLSv1.2' });
    extraCaContexts.set(pem, context);
  }
  return context;
}

function outboundOptions(
  settings: AppSettings,
  policy: DestinationPolicy,
  timeouts: OutboundTimeouts,
  localAddress?: string,
): Agent.Options {
  const extra = settings.outbound.extraCaPem;
  return {
    connect: {
      ...(extra ? { secureContext: extraCaContext(extra) } : {}),
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      lookup: policy.lookup,
      // A socket bound to a local address reaches only addresses of its family: names resolve
      // to that family alone (the policy's lookup honours it).
      ...(localAddress ? { family: isIP(localAddress) } : {}),
      timeout: timeouts.connectMs,
    },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  };
}
