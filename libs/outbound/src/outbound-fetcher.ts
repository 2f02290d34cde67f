import { isIP } from 'node:net';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { request, type Agent } from 'undici';
import { AppSettings } from '#config';
import { bareHost, DestinationPolicy } from './destination-policy.js';
import { createOutboundAgent } from './outbound-agent.js';
import { describeTlsFailure, describeTransportError } from './transport-errors.js';

/** Redirects followed at most; each hop is checked like the first request. */
export const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_URL_LENGTH = 2048;
const CONNECT_TIMEOUT_MS = 10_000;
const USER_AGENT = 'SessionAnalysisService-Fetcher/1.0';

export interface FetchOptions {
  /** A body larger than this fails ("larger than N bytes"); reading stops at the first byte over. */
  maxBytes: number;
  /** Bound on the whole exchange: connections, redirects, headers and the complete body. */
  timeoutMs: number;
  /** The caller's cancellation (a shutting-down worker, a cancelled analysis). */
  signal?: AbortSignal;
}

export interface FetchedOk {
  ok: true;
  /** The URL that answered, after redirects. */
  finalUrl: string;
  status: number;
  /** The Content-Type header as sent, or null: what the server claims, not what the bytes are. */
  declaredType: string | null;
  bytes: Buffer;
}

export interface FetchFailed {
  ok: false;
  /** Why, in one short sentence safe to store and show. */
  error: string;
}

export type FetchedBody = FetchedOk | FetchFailed;

/**
 * GETs a document from the outside world under the destination policy:
 * https:// only, certificates verified, refused addresses never connected to
 * (address literals checked here, names at connect time through the policy's
 * resolver), redirects followed by hand so each hop is checked again, the
 * body bounded in size and the whole exchange in time. Network and remote
 * faults come back as `{ ok: false, error }`; it does not throw for them.
 */
@Injectable()
export class OutboundFetcher implements OnApplicationShutdown {
  private readonly agent: Agent;

  constructor(
    settings: AppSettings,
    private readonly policy: DestinationPolicy,
  ) {
    // Headers and body timeouts are set per request from the caller's timeoutMs.
    this.agent = createOutboundAgent(settings, policy, {
      connectMs: CONNECT_TIMEOUT_MS,
      headersMs: CONNECT_TIMEOUT_MS,
      bodyMs: CONNECT_TIMEOUT_MS,
    });
  }

  async fetch(url: string, options: FetchOptions): Promise<FetchedBody> {
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    const timeout = `no complete answer within ${options.timeoutMs / 1000} s`;
    try {
      return await this.follow(url, options, signal);
    } catch (error) {
      if (options.signal?.aborted && !deadline.aborted) return failed('the fetch was cancelled');
      if (deadline.aborted) return failed(timeout);
      return failed(describeTlsFailure(error) ?? describeTransportError(error, timeout));
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }

  private async follow(
    url: string,
    options: FetchOptions,
    signal: AbortSignal,
  ): Promise<FetchedBody> {
    let next = url;
    for (let hop = 0; ; hop++) {
      const target = parseFetchUrl(next);
      if (typeof target === 'string') {
        return failed(hop === 0 ? `the URL ${target}` : `redirect refused: the location ${target}`);
      }
      // The policy's resolver only sees host names; an address literal is checked here.
      const host = bareHost(target);
      const refusal = isIP(host) ? this.policy.refusal(host, host) : null;
      if (refusal !== null) return failed(refusal);

      const response = await request(target, {
        method: 'GET',
        dispatcher: this.agent,
        headers: { 'user-agent': USER_AGENT, accept: '*/*' },
        signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      const status = response.statusCode;
      if (REDIRECT_STATUSES.has(status)) {
        discard(response.body);
        const location = first(response.headers.location);
        if (location === undefined) return failed(`HTTP ${status} without a Location`);
        if (hop === MAX_REDIRECTS) return failed('too many redirects');
        next = resolveLocation(location, target);
        continue;
      }
      if (status < 200 || status > 299) {
        discard(response.body);
        return failed(`HTTP ${status}`);
      }
      const tooLarge = `larger than ${options.maxBytes} bytes`;
      const declaredLength = Number(first(response.headers['content-length']) ?? NaN);
      if (declaredLength > options.maxBytes) {
        discard(response.body);
        return failed(tooLarge);
      }
      const bytes = await readAtMost(response.body, options.maxBytes);
      if (bytes === null) return failed(tooLarge);
      return {
        ok: true,
        finalUrl: target.href,
        status,
        declaredType: first(response.headers['content-type']) ?? null,
        bytes,
      };
    }
  }
}

function failed(error: string): FetchFailed {
  return { ok: false, error };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The URL to fetch, or what is wrong with it (completing "the URL …"). */
export function parseFetchUrl(raw: string): URL | string {
  if (raw.length > MAX_URL_LENGTH) return `is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:') return 'must use https://';
  if (url.username || url.password) return 'must not contain credentials';
  url.hash = '';
  return url;
}

/** A Location header resolved against the URL that sent it; unparsable ones are left to parseFetchUrl. */
function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

type Body = AsyncIterable<Buffer> & Pick<NodeJS.EventEmitter, 'on'> & { destroy(): void };

/**
 * Drops a body unread, closing its connection. undici's body emits an abort
 * error when destroyed before its end: with no listener that error would be
 * an uncaught exception, so one listens and ignores it.
 */
function discard(body: Body): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** The whole body, or null as soon as it passes `maxBytes` (the rest is never read). */
async function readAtMost(body: Body, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      discard(body);
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
