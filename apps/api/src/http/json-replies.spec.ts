import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableFile } from '@nestjs/common';
import express, { type Express, type Request, type Response } from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyJson } from './json-replies.js';

/**
 * What the client receives when a route's object goes through replyJson,
 * against Express's own `res.status(…).json(…)` — Nest's reply — for the same
 * request: status, every header but the date, and the body.
 */
describe('replyJson writes what res.json writes', () => {
  let viaExpress: Server;
  let direct: Server;
  let directlyWritten = 0;

  /** The test's case travels in headers: the status, the body and a header the route sets first. */
  function route(write: (response: Response, body: unknown, status: number) => void) {
    return (request: Request, response: Response) => {
      const preset = request.header('x-preset');
      if (preset) {
        const [name, value] = preset.split('=') as [string, string];
        response.setHeader(name, value);
      }
      const body = JSON.parse(Buffer.from(request.header('x-body')!, 'base64url').toString());
      write(response, body, Number(request.header('x-status')));
    };
  }

  async function listen(configure: (app: Express) => void): Promise<Server> {
    const app = express();
    app.set('etag', false);
    configure(app);
    return new Promise((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server));
    });
  }

  beforeAll(async () => {
    viaExpress = await listen((app) =>
      app.all(
        '/{*any}',
        route((response, body, status) => void response.status(status).json(body)),
      ),
    );
    direct = await listen((app) =>
      app.all(
        '/{*any}',
        route((response, body, status) => {
          if (replyJson(response, body, status)) directlyWritten++;
          else response.status(status).json(body);
        }),
      ),
    );
  });
  afterAll(() => Promise.all([viaExpress, direct].map((server) => server?.close())));

  interface Case {
    method: string;
    status: number;
    body: unknown;
    preset: string | null;
    conditional: Record<string, string>;
  }

  async function ask(server: Server, test: Case) {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/v1/things`, {
      method: test.method,
      headers: {
        'x-status': String(test.status),
        'x-body': Buffer.from(JSON.stringify(test.body)).toString('base64url'),
        ...(test.preset ? { 'x-preset': test.preset } : {}),
        ...test.conditional,
      },
    });
    const headers = Object.fromEntries(
      [...response.headers].filter(([name]) => name !== 'date' && name !== 'keep-alive'),
    );
    return { status: response.status, headers, body: await response.text() };
  }

  const cases: fc.Arbitrary<Case> = fc.record({
    method: fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE'),
    status: fc.constantFrom(200, 201, 202, 204, 205, 304, 400, 404, 500),
    body: fc.oneof(
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.array(fc.jsonValue()),
      fc.constant({ text: 'héllo ✓ \u2028 </script>' }),
    ),
    // Mostly none, so that a good share of the cases takes the direct path.
    preset: fc.oneof(
      { arbitrary: fc.constant(null), weight: 3 },
      fc.constantFrom(
        'Content-Type=application/problem+json',
        'ETag="abc"',
        'Last-Modified=Wed, 21 Oct 2015 07:28:00 GMT',
        'Cache-Control=no-store',
      ),
    ),
    conditional: fc.oneof(
      { arbitrary: fc.constant<Record<string, string>>({}), weight: 3 },
      fc.constantFrom<Record<string, string>>(
        { 'if-none-match': '*' },
        { 'if-none-match': '"abc"' },
        { 'if-modified-since': 'Wed, 21 Oct 2015 07:28:00 GMT' },
      ),
    ),
  });

  it('for any object, status, method, header already set and conditional request', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (test) => {
        const [expected, actual] = await Promise.all([ask(viaExpress, test), ask(direct, test)]);
        expect(actual, JSON.stringify(test)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
    // The cases did take the direct path, not only Express's.
    expect(directlyWritten).toBeGreaterThan(60);
  });

  it('writes a plain 200 itself, and leaves 304s, conditional requests and set types to Express', async () => {
    const plain: Case = {
      method: 'GET',
      status: 200,
      body: { a: 1 },
      preset: null,
      conditional: {},
    };
    const before = directlyWritten;
    expect(await ask(direct, plain)).toMatchObject({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '7' },
      body: '{"a":1}',
    });
    expect(directlyWritten).toBe(before + 1);
    await ask(direct, { ...plain, conditional: { 'if-none-match': '*' } });
    await ask(direct, { ...plain, status: 304 });
    await ask(direct, { ...plain, preset: 'Content-Type=application/problem+json' });
    expect(directlyWritten).toBe(before + 1);
  });

  it('leaves anything but plain objects and arrays to Express or Nest, writing nothing', () => {
    class Dto {
      a = 1;
    }
    const written: unknown[] = [];
    const app = express();
    app.set('etag', false);
    const response = {
      app,
      req: { method: 'GET', headers: {} },
      hasHeader: () => false,
      setHeader: (...args: unknown[]) => written.push(args),
      end: (...args: unknown[]) => written.push(args),
    } as unknown as Response;
    for (const body of [
      new StreamableFile(Buffer.from('a,b\n')),
      Buffer.from('{}'),
      new Error('no'),
      new Dto(),
      new Date(),
      'text',
      null,
    ]) {
      expect(replyJson(response, body, 200)).toBe(false);
    }
    expect(written).toEqual([]);
    expect(replyJson(response, Object.assign(Object.create(null), { a: 1 }), 200)).toBe(true);
  });
});
