import { isIP } from 'node:net';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { AppSettings } from '#config';
import {
  bareHost,
  createOutboundPool,
  describeTransportError,
  DestinationPolicy,
  type OutboundPool,
  type OutboundTimeouts,
} from '#outbound';
import { DELIVERY_TIMEOUT_MS } from './retry-schedule.js';

/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_BODY_LIMIT = 1024;
const USER_AGENT = 'SessionAnalysisService-Webhooks/1.0';
const TIMEOUTS: OutboundTimeouts = {
  connectMs: DELIVERY_TIMEOUT_MS,
  headersMs: DELIVERY_TIMEOUT_MS,
  bodyMs: DELIVERY_TIMEOUT_MS,
};
/** An endpoint's pool unused this long is closed (its sockets close sooner, when idle). */
const POOL_IDLE_MS = 10 * 60_000;

export interface SendOutcome {
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  /** Why no answer came (timeout, refused destination, TLS failure…); null when one did. */
  error: string | null;
  retryAfter: string | undefined;
}

/**
 * Sends one signed POST. Certificates are always verified (Node's roots plus
 * OUTBOUND_EXTRA_CA_FILE), TLS 1.2 at least, no redirects followed, and the
 * whole exchange is bounded by the spec's 5 seconds. With WEBHOOK_SOURCE_ADDRESSES,
 * an endpoint's deliveries leave from each published address in turn.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  /**
   * One connection pool per endpoint and origin, as many sockets as the endpoint's cap (per
   * source address: the cap on deliveries in flight holds across them all).
   */
  private readonly pools = new Map<string, { pool: OutboundPool; usedAt: number }>();
  private sweptAt = Date.now();

  constructor(
    private readonly settings: AppSettings,
    private readonly policy: DestinationPolicy,
  ) {}

  /** POSTs `body` to the endpoint `webhookId`'s `url` over its kept-alive connections. */
  async send(
    webhookId: string,
    url: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = new URL(url);
    // The resolver hook only sees host names; an address literal is checked here.
    const host = bareHost(target);
    const refusal = isIP(host) ? this.policy.refusal(host, host) : null;
    if (refusal !== null) return failure(refusal, 0);
    try {
      const response = await this.poolFor(webhookId, target.origin).request({
        path: target.pathname + target.search,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
        body,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      const responseBody = await readPrefix(response.body, RESPONSE_BODY_LIMIT);
      const retryAfter = response.headers['retry-after'];
      return {
        statusCode: response.statusCode,
        durationMs: elapsed(),
        responseBody,
        error: null,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      };
    } catch (error) {
      return failure(describe(error), elapsed());
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map(({ pool }) => pool.close().catch(() => undefined)));
  }

  private poolFor(webhookId: string, origin: string): OutboundPool {
    const now = Date.now();
    if (now - this.sweptAt > POOL_IDLE_MS) this.sweep(now);
    const key = `${webhookId} ${origin}`;
    let entry = this.pools.get(key);
    if (!entry) {
      const pool = createOutboundPool(
        origin,
        this.settings,
        this.policy,
        TIMEOUTS,
        this.settings.webhooks.endpointConcurrency,
        this.settings.webhooks.sourceAddresses,
      );
      entry = { pool, usedAt: now };
      this.pools.set(key, entry);
    }
    entry.usedAt = now;
    return entry.pool;
  }

  /** Closes the pools of endpoints not sent to for a while (deleted, or their URL changed). */
  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [key, { pool, usedAt }] of this.pools) {
      if (now - usedAt < POOL_IDLE_MS) continue;
      this.pools.delete(key);
      pool.close().catch(() => undefined);
    }
  }
}

function failure(error: string, durationMs: number): SendOutcome {
  return { statusCode: null, durationMs, responseBody: null, error, retryAfter: undefined };
}

async function readPrefix(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** A short, safe description of a transport failure for the attempt record. */
function describe(error: unknown): string {
  return describeTransportError(error, `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`);
}
