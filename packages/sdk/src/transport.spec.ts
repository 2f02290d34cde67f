import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  PermissionError,
  RateLimitError,
  SasError,
  ServerError,
  ValidationError,
} from './errors.js';
import { backoffMs, MAX_RETRY_DELAY_MS, retryDelayMs, Transport } from './transport.js';

/**
 * A real HTTP server answering from a script, recording what it was sent.
 * `chunks` are written raw one after another (`pauseMs` apart), and `hang`
 * leaves the answer unfinished after them.
 */
type Answer = {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  chunks?: (string | Uint8Array)[];
  pauseMs?: number;
  hang?: boolean;
};
let server: Server;
let baseUrl: string;
let script: Answer[] = [];
let seen: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
/** Answers the client closed before their end. */
let cutShort = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({ method: request.method!, url: request.url!, headers: request.headers });
    request.resume();
    const answer = script.shift() ?? { status: 500 };
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    if (answer.chunks) {
      response.on('close', () => {
        if (!response.writableFinished) cutShort += 1;
      });
      void (async () => {
        for (const chunk of answer.chunks!) {
          if (response.destroyed) return;
          response.write(chunk);
          await new Promise((resolve) => setTimeout(resolve, answer.pauseMs ?? 0));
        }
        if (!answer.hang) response.end();
      })();
      return;
    }
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  // fetch may keep a spare connection open after a cancelled body (undici): close that too.
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

function transport(waits: number[], maxRetries = 3, timeoutMs = 5_000) {
  seen = [];
  return new Transport({
    baseUrl,
    credentials: { apiKey: 'sk_test_key' },
    maxRetries,
    timeoutMs,
    fetch: globalThis.fetch,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
}

const envelope = (code: string) => ({
  error: {
    code,
    message: `${code} happened`,
    details: { field: 'limit' },
    request_id: 'req_01jh2x7v4ke8rbk3a8y0v0d7qz',
    help_url: 'https://api.example.com/docs/errors#x',
  },
});

describe('retries', () => {
  it('waits what Retry-After says on a 429, then retries the POST with the same Idempotency-Key', async () => {
    const waits: number[] = [];
    script = [
      { status: 429, headers: { 'retry-after': '2' }, body: envelope('RATE_LIMITED') },
      { status: 201, body: { ok: true } },
    ];
    const answer = await transport(waits).request({
      method: 'POST',
      path: '/v1/sessions',
      body: {},
    });
    expect(answer).toEqual({ ok: true });
    expect(waits).toEqual([2_000]);
    expect(seen).toHaveLength(2);
    const keys = seen.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(keys[1]).toBe(keys[0]);
    expect(seen[0]!.headers['x-api-key']).toBe('sk_test_key');
  });

  it('falls back to 60 s on a 429 without Retry-After, and never waits longer than 60 s', async () => {
    const waits: number[] = [];
    script = [
      { status: 429, body: envelope('RATE_LIMITED') },
      { status: 429, headers: { 'retry-after': '3600' }, body: envelope('RATE_LIMITED') },
      { status: 200, body: {} },
    ];
    await transport(waits).request({ method: 'GET', path: '/v2/sessions' });
    expect(waits).toEqual([60_000, MAX_RETRY_DELAY_MS]);
  });

  it('backs off exponentially from 1 s on 5xx and network failures, and gives up after maxRetries', async () => {
    const waits: number[] = [];
    script = [
      { status: 503 },
      { status: 502 },
      { status: 500 },
      { status: 500, body: envelope('INTERNAL') },
    ];
    const failure = await transport(waits)
      .request({ method: 'GET', path: '/v2/sessions' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServerError);
    expect(failure).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(seen).toHaveLength(4);
    expect(waits).toHaveLength(3);
    waits.forEach((wait, i) => {
      expect(wait).toBeGreaterThanOrEqual(0.75 * 1_000 * 2 ** i);
      expect(wait).toBeLessThanOrEqual(1_000 * 2 ** i);
    });

    const unreachable = new Transport({
      baseUrl: 'http://127.0.0.1:9',
      credentials: { apiKey: 'k' },
      maxRetries: 2,
      timeoutMs: 2_000,
      fetch: globalThis.fetch,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    waits.length = 0;
    await expect(unreachable.request({ method: 'GET', path: '/' })).rejects.toBeInstanceOf(
      ConnectionError,
    );
    expect(waits).toHaveLength(2);
  });

  it('never retries a request the service refused as wrong, and types the error', async () => {
    const waits: number[] = [];
    script = [{ status: 400, body: envelope('INVALID_REQUEST') }];
    const failure = (await transport(waits)
      .request({ method: 'GET', path: '/v1/sessions', query: { limit: 0 } })
      .catch((error: unknown) => error)) as ValidationError;
    expect(failure).toBeInstanceOf(ValidationError);
    expect(failure).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'limit' },
      requestId: 'req_01jh2x7v4ke8rbk3a8y0v0d7qz',
      helpUrl: 'https://api.example.com/docs/errors#x',
    });
    expect(waits).toEqual([]);
    expect(seen[0]!.url).toBe('/v1/sessions?limit=0');
  });

  it('throws the rate limit once retries are used up, with its request id', async () => {
    script = [
      { status: 429, headers: { 'retry-after': '1' }, body: envelope('RATE_LIMITED') },
      { status: 429, headers: { 'retry-after': '1' }, body: envelope('RATE_LIMITED') },
    ];
    const failure = await transport([], 1)
      .request({ method: 'GET', path: '/v2/sessions' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).requestId).toBe('req_01jh2x7v4ke8rbk3a8y0v0d7qz');
  });
});

describe('client credentials', () => {
  it('asks for a token once, reuses it, and asks again when the service says it is no longer good', async () => {
    const waits: number[] = [];
    seen = [];
    const client = new Transport({
      baseUrl,
      credentials: { clientId: 'cli', clientSecret: 'secret' },
      maxRetries: 0,
      timeoutMs: 5_000,
      fetch: globalThis.fetch,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    script = [
      { status: 200, body: { access_token: 'token-1', expires_in: 3600 } },
      { status: 200, body: { n: 1 } },
      { status: 200, body: { n: 2 } },
      { status: 401, body: envelope('UNAUTHORIZED') },
      { status: 200, body: { access_token: 'token-2', expires_in: 3600 } },
      { status: 200, body: { n: 3 } },
    ];
    expect(await client.request({ method: 'GET', path: '/a' })).toEqual({ n: 1 });
    expect(await client.request({ method: 'GET', path: '/b' })).toEqual({ n: 2 });
    expect(await client.request({ method: 'GET', path: '/c' })).toEqual({ n: 3 });
    expect(seen.map((request) => request.url)).toEqual([
      '/oauth2/token',
      '/a',
      '/b',
      '/c',
      '/oauth2/token',
      '/c',
    ]);
    expect(seen[5]!.headers.authorization).toBe('Bearer token-2');
    // A per-request credential goes instead of the client's.
    script = [{ status: 200, body: {} }];
    await client.request({ method: 'GET', path: '/d' }, { auth: { apiKey: 'other' } });
    expect(seen.at(-1)!.headers['x-api-key']).toBe('other');
    expect(seen.at(-1)!.headers.authorization).toBeUndefined();
  });
});

describe('delays', () => {
  it('read Retry-After as seconds or a date, and cap both', () => {
    const at = (headers: Record<string, string>, status = 503) => ({
      status,
      headers: new Headers(headers),
    });
    expect(retryDelayMs(at({ 'retry-after': '7' }), 1)).toBe(7_000);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(retryDelayMs(at({ 'retry-after': inTenSeconds }), 1)).toBeGreaterThan(8_000);
    expect(retryDelayMs(at({ 'retry-after': '999' }), 1)).toBe(60_000);
    expect(backoffMs(1, () => 0)).toBe(1_000);
    expect(backoffMs(3, () => 1)).toBe(3_000);
    expect(backoffMs(20, () => 0)).toBe(60_000);
  });
});

describe('NDJSON answers', () => {
  const NDJSON_HEADERS = { 'content-type': 'application/x-ndjson' };
  const collect = async <T>(lines: AsyncIterable<T>): Promise<T[]> => {
    const items: T[] = [];
    for await (const item of lines) items.push(item);
    return items;
  };

  it('asks for NDJSON and yields one value per line, lines split anywhere across chunks', async () => {
    const snowman = new TextEncoder().encode('{"n":3,"s":"\u2603"}\n');
    script = [
      {
        status: 200,
        headers: NDJSON_HEADERS,
        // A line cut in two, an empty line, a character cut between its bytes, no final newline.
        chunks: ['{"n":1}\n{"n"', ':2}\n\n', snowman.slice(0, 14), snowman.slice(14), '{"n":4}'],
        pauseMs: 5,
      },
    ];
    const lines = await collect(
      transport([]).ndjson<{ n: number; s?: string }>({
        method: 'GET',
        path: '/v2/audit-events',
        query: { action: 'api_key.created' },
      }),
    );
    expect(lines).toEqual([{ n: 1 }, { n: 2 }, { n: 3, s: '\u2603' }, { n: 4 }]);
    expect(seen[0]!.headers.accept).toBe('application/x-ndjson');
    expect(seen[0]!.url).toBe('/v2/audit-events?action=api_key.created');
  });

  it('types a refusal as any call does, and retries a 503 before the first line', async () => {
    const waits: number[] = [];
    script = [{ status: 403, body: envelope('FORBIDDEN') }];
    const refused = await collect(
      transport(waits).ndjson({ method: 'GET', path: '/v2/audit-events' }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PermissionError);
    expect(refused).toMatchObject({
      code: 'FORBIDDEN',
      requestId: 'req_01jh2x7v4ke8rbk3a8y0v0d7qz',
    });

    script = [
      { status: 503, body: envelope('SERVICE_UNAVAILABLE') },
      { status: 200, headers: NDJSON_HEADERS, chunks: ['{"n":1}\n'] },
    ];
    expect(
      await collect(transport(waits).ndjson({ method: 'GET', path: '/v2/audit-events' })),
    ).toEqual([{ n: 1 }]);
    expect(waits).toHaveLength(1);
  });

  it('lets a stream run longer than timeoutMs while it keeps coming, and gives up on silence', async () => {
    script = [
      {
        status: 200,
        headers: NDJSON_HEADERS,
        chunks: Array.from({ length: 8 }, (_, n) => `{"n":${n}}\n`),
        pauseMs: 60,
      },
    ];
    // 8 lines 60 ms apart: about 480 ms in all, each silence well under 300 ms.
    expect(
      await collect(transport([], 0, 300).ndjson({ method: 'GET', path: '/v2/audit-events' })),
    ).toHaveLength(8);

    script = [{ status: 200, headers: NDJSON_HEADERS, chunks: ['{"n":1}\n'], hang: true }];
    const seenLines: unknown[] = [];
    const failure = await (async () => {
      for await (const line of transport([], 0, 300).ndjson({ method: 'GET', path: '/x' }))
        seenLines.push(line);
    })().catch((error: unknown) => error);
    expect(seenLines).toEqual([{ n: 1 }]);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect((failure as ConnectionError).message).toMatch(/^The answer stopped before its end/);
  });

  it('closes the connection when the caller stops early, and refuses a line that is not JSON', async () => {
    script = [
      {
        status: 200,
        headers: NDJSON_HEADERS,
        chunks: Array.from({ length: 1000 }, (_, n) => `{"n":${n}}\n`),
        pauseMs: 1,
        hang: true,
      },
    ];
    cutShort = 0;
    const first: unknown[] = [];
    for await (const line of transport([]).ndjson({ method: 'GET', path: '/x' })) {
      first.push(line);
      if (first.length === 2) break;
    }
    expect(first).toEqual([{ n: 0 }, { n: 1 }]);
    await expect.poll(() => cutShort).toBe(1);

    script = [{ status: 200, headers: NDJSON_HEADERS, chunks: ['{"n":1}\nnot json\n'] }];
    const failure = await collect(transport([]).ndjson({ method: 'GET', path: '/x' })).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SasError);
    expect(failure).toMatchObject({ code: 'INVALID_RESPONSE', status: 200 });
  });
});
