import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent, request } from 'undici';
import { AppSettings } from '#config';
import { bareHost, DestinationPolicy } from './destination-policy.js';
import { DELIVERY_TIMEOUT_MS } from './retry-schedule.js';

/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_BODY_LIMIT = 1024;
const USER_AGENT = 'SessionAnalysisService-Webhooks/1.0';

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
 * WEBHOOK_EXTRA_CA_FILE), TLS 1.2 at least, no redirects followed, and the
 * whole exchange is bounded by the spec's 5 seconds.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly agent: Agent;

  constructor(
    settings: AppSettings,
    private readonly policy: DestinationPolicy,
  ) {
    const extra = settings.webhooks.extraCaPem;
    this.agent = new Agent({
      connect: {
        ...(extra ? { ca: [...rootCertificates, extra] } : {}),
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        lookup: policy.lookup,
        timeout: DELIVERY_TIMEOUT_MS,
      },
      headersTimeout: DELIVERY_TIMEOUT_MS,
      bodyTimeout: DELIVERY_TIMEOUT_MS,
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = new URL(url);
    // The resolver hook only sees host names; an address literal is checked here.
    const host = bareHost(target);
    const refusal = isIP(host) ? this.policy.refusal(host, host) : null;
    if (refusal !== null) return failure(`refused destination: ${refusal}`, 0);
    try {
      const response = await request(target, {
        method: 'POST',
        dispatcher: this.agent,
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
    await this.agent.close().catch(() => undefined);
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
  const { name, code, message, cause } = error as {
    name?: string;
    code?: string;
    message?: string;
    cause?: unknown;
  };
  if (
    name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  if (code === 'EREFUSEDDEST') return message ?? 'refused destination';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'the host does not resolve';
  if (
    code?.startsWith('ERR_TLS') ||
    code?.includes('CERT') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT'
  ) {
    return `TLS failure: ${code} (${message ?? ''})`;
  }
  if (cause && cause !== error) return describe(cause);
  return `${code ?? name ?? 'error'}: ${message ?? 'request failed'}`;
}
