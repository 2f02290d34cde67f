import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { Agent, Pool } from 'undici';
import { AppSettings } from '#config';
import { DestinationPolicy } from './destination-policy.js';

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

/**
 * The same, for one origin: at most `connections` sockets, kept alive between
 * requests, one request at a time on each (no pipelining). Every new socket is
 * resolved through the destination policy like the agent's.
 */
export function createOutboundPool(
  origin: string,
  settings: AppSettings,
  policy: DestinationPolicy,
  timeouts: OutboundTimeouts,
  connections: number,
): Pool {
  return new Pool(origin, {
    ...outboundOptions(settings, policy, timeouts),
    connections,
    pipelining: 1,
  });
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
): Agent.Options {
  const extra = settings.outbound.extraCaPem;
  return {
    connect: {
      ...(extra ? { secureContext: extraCaContext(extra) } : {}),
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      lookup: policy.lookup,
      timeout: timeouts.connectMs,
    },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  };
}
