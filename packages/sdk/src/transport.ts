import { ConnectionError, errorFromResponse, SasError } from './errors.js';

/** How a client proves who it is: an API key, an OAuth client's credentials, or a token you hold. */
export type Credentials =
  | { apiKey: string }
  | { clientId: string; clientSecret: string; scope?: string }
  | { accessToken: string };

/** Per-request options every call takes as its last argument. */
export interface RequestOptions {
  /** Another credential for this request only. */
  auth?: Credentials;
  /** For a POST: the key that makes retries safe; the SDK makes one (and keeps it across retries) when absent. */
  idempotencyKey?: string;
  /** Retries after a 408, 429, 5xx or network failure (default: the client's, 3). */
  maxRetries?: number;
  /** Give up on one attempt after this long (default: the client's, 60 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface TransportConfig {
  baseUrl: string;
  credentials: Credentials;
  maxRetries: number;
  timeoutMs: number;
  fetch: typeof fetch;
  userAgent?: string | undefined;
  /** How the SDK waits between retries (tests may speed it up). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** One call: the method, the path (with its parameters filled), the query and the body. */
export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, unknown> | undefined;
  /** A JSON body. */
  body?: unknown;
  /**
   * A body sent as it is instead (a form with files, NDJSON, CSV); `type` is
   * its media type, left out for a FormData, whose boundary fetch sets.
   */
  content?: { body: string | Blob | FormData; type?: string };
  /**
   * `blob`: the answer is a file (a sketch, a photo, a report), read as a Blob.
   * `stream`: the answer is left unread, its body a `ReadableStream` of bytes
   * (an NDJSON export); `timeoutMs` then limits the wait for its headers and
   * each silence between its chunks, not the whole of it.
   */
  as?: 'blob' | 'stream';
  /** The media type asked for (`Accept`), when not JSON (or `*\/*` for a blob). */
  accept?: string;
}

/** The longest the SDK ever waits before a retry, whatever the service says (as stripe-node). */
export const MAX_RETRY_DELAY_MS = 60_000;
/** The first backoff; each retry doubles it. */
export const INITIAL_RETRY_DELAY_MS = 1_000;
/** The spec: a 429 without `Retry-After` means 60 seconds. */
export const RATE_LIMIT_FALLBACK_MS = 60_000;

/** Newline-delimited JSON: one value per line (`Accept` of an export). */
export const NDJSON = 'application/x-ndjson';

const RETRYABLE = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * The HTTP side of the client: authentication, an Idempotency-Key on every
 * POST (the same one across its retries), retries with exponential backoff
 * and jitter that honour `Retry-After`, and typed errors.
 */
export class Transport {
  private readonly tokens = new TokenCache();

  constructor(private readonly config: TransportConfig) {}

  get baseUrl(): string {
    return this.config.baseUrl;
  }

  async request<T>(call: Call, options: RequestOptions = {}): Promise<T> {
    return (await this.send(call, options)).body as T;
  }

  /** The answer with its headers, for callers that need them (`requestId`, downloads). */
  async send(
    call: Call,
    options: RequestOptions = {},
  ): Promise<{ response: Response; body: unknown }> {
    const credentials = options.auth ?? this.config.credentials;
    const maxRetries = options.maxRetries ?? this.config.maxRetries;
    const headers: Record<string, string> = {
      accept: call.accept ?? (call.as === 'blob' ? '*/*' : 'application/json'),
      ...(this.config.userAgent ? { 'user-agent': this.config.userAgent } : {}),
      ...options.headers,
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.content?.type) headers['content-type'] = call.content.type;
    // Retrying a POST is safe only with a key; the SDK adds one so every POST may be retried.
    if (call.method === 'POST') {
      headers['idempotency-key'] = options.idempotencyKey ?? idempotencyKey();
    }
    const url = this.url(call);
    const body = call.content
      ? call.content.body
      : call.body === undefined
        ? undefined
        : JSON.stringify(call.body);
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    let refreshedToken = false;
    for (let attempt = 0; ; attempt += 1) {
      const authorization = await this.authorization(credentials, options.signal);
      const idle = call.as === 'stream' ? new IdleTimeout(timeoutMs, options.signal) : null;
      let response: Response;
      try {
        response = await this.config.fetch(url, {
          method: call.method,
          headers: { ...headers, ...authorization },
          ...(body !== undefined ? { body } : {}),
          signal: idle?.signal ?? attemptSignal(timeoutMs, options.signal),
        });
      } catch (error) {
        idle?.stop();
        if (options.signal?.aborted) throw error;
        if (attempt >= maxRetries) throw connectionError(error);
        await this.config.sleep(backoffMs(attempt + 1), options.signal);
        continue;
      }
      if (response.ok && call.as === 'blob') return { response, body: await response.blob() };
      if (response.ok && idle && response.body) {
        return { response, body: idle.watch(response.body) };
      }
      const parsed = await readBody(response).finally(() => idle?.stop());
      if (response.ok) return { response, body: parsed };
      // A cached token may have been revoked or outlived: fetch a new one, once.
      if (response.status === 401 && 'clientId' in credentials && !refreshedToken) {
        this.tokens.forget(credentials);
        refreshedToken = true;
        attempt -= 1;
        continue;
      }
      const error = errorFromResponse(response.status, parsed, response.headers);
      if (!RETRYABLE(response.status) || attempt >= maxRetries) throw error;
      await this.config.sleep(retryDelayMs(response, attempt + 1), options.signal);
    }
  }

  /**
   * A GET answered as NDJSON, one parsed value per line, read as the lines
   * arrive: only the line being read is held, however long the answer. A
   * refusal before the first line is the typed error any call throws; a
   * connection lost or silent for `timeoutMs` midway, a `ConnectionError`
   * (nothing is retried once lines have come).
   */
  async *ndjson<T>(call: Call, options: RequestOptions = {}): AsyncGenerator<T> {
    const { response, body } = await this.send(
      { ...call, as: 'stream', accept: call.accept ?? NDJSON },
      options,
    );
    if (!(body instanceof ReadableStream)) return;
    const reader = (body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    const parse = (line: string): T => {
      try {
        return JSON.parse(line) as T;
      } catch {
        throw new SasError(
          `The service answered a line that is not JSON: ${line.slice(0, 80)}`,
          response.status,
          'INVALID_RESPONSE',
          {},
          response.headers.get('x-request-id'),
          null,
          response.headers,
        );
      }
    };
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (options.signal?.aborted) throw error;
          throw connectionError(error, 'The answer stopped before its end');
        }
        buffered += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf('\n')) !== -1) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line !== '') yield parse(line);
        }
        if (chunk.done) break;
      }
      if (buffered.trim() !== '') yield parse(buffered.trim());
    } finally {
      // Stopped early (a `break`, a thrown error): the rest is not wanted, close the connection.
      await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }

  /** The headers that authenticate a request with these credentials. */
  async authorization(
    credentials: Credentials,
    signal?: AbortSignal,
  ): Promise<Record<string, string>> {
    if ('apiKey' in credentials) return { 'x-api-key': credentials.apiKey };
    if ('accessToken' in credentials) return { authorization: `Bearer ${credentials.accessToken}` };
    const token = await this.tokens.get(credentials, () => this.issueToken(credentials, signal));
    return { authorization: `Bearer ${token}` };
  }

  private async issueToken(
    credentials: { clientId: string; clientSecret: string; scope?: string },
    signal?: AbortSignal,
  ): Promise<{ token: string; expiresInSeconds: number }> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      ...(credentials.scope ? { scope: credentials.scope } : {}),
    });
    const response = await this.config.fetch(`${this.config.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: attemptSignal(this.config.timeoutMs, signal),
    });
    const body = (await readBody(response)) as Record<string, unknown> | null;
    if (!response.ok || typeof body?.access_token !== 'string') {
      const oauthError = typeof body?.error === 'string' ? body.error : `HTTP_${response.status}`;
      const description =
        typeof body?.error_description === 'string' ? body.error_description : 'no token issued';
      throw new SasError(
        `The token endpoint refused the client credentials: ${description}`,
        response.status,
        oauthError,
        {},
        response.headers.get('x-request-id'),
        null,
        response.headers,
      );
    }
    return {
      token: body.access_token,
      expiresInSeconds: typeof body.expires_in === 'number' ? body.expires_in : 300,
    };
  }

  private url(call: Call): string {
    const url = new URL(`${this.config.baseUrl}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value === undefined || value === null) continue;
      url.searchParams.set(name, value instanceof Date ? value.toISOString() : String(value));
    }
    return url.toString();
  }
}

/**
 * OAuth access tokens of client credentials, kept until a minute before they
 * expire (or a tenth of their life, for short ones) and shared by concurrent
 * requests: one token request at a time per client.
 */
class TokenCache {
  private readonly entries = new Map<string, Promise<{ token: string; renewAt: number }>>();

  async get(
    credentials: { clientId: string; scope?: string },
    issue: () => Promise<{ token: string; expiresInSeconds: number }>,
  ): Promise<string> {
    const key = `${credentials.clientId} ${credentials.scope ?? ''}`;
    const cached = this.entries.get(key);
    if (cached) {
      const entry = await cached.catch(() => null);
      if (entry && Date.now() < entry.renewAt) return entry.token;
    }
    const pending = issue().then(({ token, expiresInSeconds }) => ({
      token,
      renewAt:
        Date.now() + Math.max(0, expiresInSeconds - Math.min(60, expiresInSeconds / 10)) * 1000,
    }));
    this.entries.set(key, pending);
    pending.catch(() => this.entries.delete(key));
    return (await pending).token;
  }

  forget(credentials: { clientId: string; scope?: string }): void {
    this.entries.delete(`${credentials.clientId} ${credentials.scope ?? ''}`);
  }
}

/**
 * How long to wait before retry `retry` (1, 2, …): what `Retry-After` says
 * (seconds or an HTTP date), else 60 s for a 429 (the spec), else the
 * exponential backoff — never more than MAX_RETRY_DELAY_MS.
 */
export function retryDelayMs(
  response: Pick<Response, 'status' | 'headers'>,
  retry: number,
): number {
  const header = response.headers.get('retry-after');
  if (header !== null) {
    const seconds = /^\d+$/.test(header.trim())
      ? Number(header) * 1000
      : Date.parse(header) - Date.now();
    if (Number.isFinite(seconds)) return Math.min(MAX_RETRY_DELAY_MS, Math.max(0, seconds));
  }
  if (response.status === 429) return RATE_LIMIT_FALLBACK_MS;
  return backoffMs(retry);
}

/** 1 s, 2 s, 4 s, … up to 60 s, each less up to a quarter at random so clients spread out. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_DELAY_MS, INITIAL_RETRY_DELAY_MS * 2 ** (retry - 1));
  return Math.round(base * (1 - 0.25 * random()));
}

/**
 * A random version 4 UUID. `crypto.randomUUID` exists only in secure
 * contexts (https, localhost); `getRandomValues` everywhere, so a page served
 * over plain http can still send keys.
 */
export function idempotencyKey(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Waits, or stops waiting when the caller aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

function attemptSignal(timeoutMs: number, signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/**
 * The time limit of a streamed answer: `timeoutMs` for its headers, then for
 * each silence between chunks, so an export may take as long as it needs
 * while it keeps coming. Aborting `signal` aborts it too.
 */
class IdleTimeout {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  readonly signal: AbortSignal;

  constructor(
    private readonly timeoutMs: number,
    signal?: AbortSignal,
  ) {
    this.signal = signal
      ? AbortSignal.any([signal, this.controller.signal])
      : this.controller.signal;
    this.arm();
  }

  /** The body, each chunk of which restarts the clock; done or cancelled, the clock stops. */
  watch(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (done) {
            this.stop();
            controller.close();
            return;
          }
          this.arm();
          controller.enqueue(value);
        } catch (error) {
          this.stop();
          controller.error(error);
        }
      },
      cancel: async (reason) => {
        this.stop();
        await reader.cancel(reason);
      },
    });
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(): void {
    this.stop();
    this.timer = setTimeout(
      () => this.controller.abort(new DOMException('The stream went silent', 'TimeoutError')),
      this.timeoutMs,
    );
    // Node: the clock alone does not keep the process alive (AbortSignal.timeout's does not either).
    (this.timer as { unref?: () => void }).unref?.();
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  if (!(response.headers.get('content-type') ?? '').includes('json')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function connectionError(
  error: unknown,
  what = 'The service could not be reached',
): ConnectionError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ConnectionError(`${what}: ${reason}`, 0, 'CONNECTION_ERROR', {}, null, null);
}
