import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LeafCertificate } from './https-receiver.js';

/**
 * A document server for e2e tests of reference material: a real `node:https`
 * server whose certificate comes from the throwaway CA of https-receiver.ts
 * (trusted through OUTBOUND_EXTRA_CA_FILE), serving the fixtures of
 * test/fixtures/reference-material and the faults a fetcher must survive.
 * It listens on 127.0.0.1 and is reached as https://localhost:PORT, so a
 * test can allow `localhost` while a redirect to 127.0.0.1 stays refused.
 *
 * Routes:
 *   /photo-gps.jpg /photo-offset.jpg /plain.png /two-pages.pdf /notes.txt   the fixtures, typed
 *   /corrupt.pdf            the PDF cut short, as application/pdf
 *   /html-as-jpeg           a sign-in page declared image/jpeg
 *   /hang                   200 and headers, then nothing
 *   /trickle                200, then one byte every 100 ms, forever
 *   /endless                a body of 10 GiB, declared in Content-Length
 *   /endless-chunked        the same without a length (chunked), until the client goes
 *   /redirect/to-fixture    302 to /photo-gps.jpg (relative)
 *   /redirect/to-loopback   302 to https://127.0.0.1:PORT/photo-gps.jpg?via=loopback
 *   /redirect/to-http       302 to http://localhost:PORT/photo-gps.jpg
 *   /redirect/chain/N       302 to /redirect/chain/N+1, for ever
 *   anything else           404
 */
export interface FileServer {
  /** https://localhost:PORT */
  readonly origin: string;
  readonly port: number;
  /** Paths (with query) of every request received, in order. */
  readonly requests: string[];
  url(path: string): string;
  /** Stops listening, drops open connections and the streams still writing to them. */
  close(): Promise<void>;
}

const FIXTURES = new URL('../fixtures/reference-material/', import.meta.url);
const FIXTURE_TYPES: Record<string, string> = {
  '/photo-gps.jpg': 'image/jpeg',
  '/photo-offset.jpg': 'image/jpeg',
  '/plain.png': 'image/png',
  '/two-pages.pdf': 'application/pdf',
  '/notes.txt': 'text/plain; charset=utf-8',
};
const TEN_GIB = 10 * 1024 ** 3;
const CHUNK = Buffer.alloc(64 * 1024, 0x41);
const SIGN_IN_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form>…</form></body></html>\n';

export async function startFileServer(options: {
  certificate: LeafCertificate;
}): Promise<FileServer> {
  const requests: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let port = 0;

  const server: Server = createServer(
    { minVersion: 'TLSv1.2', cert: options.certificate.certPem, key: options.certificate.keyPem },
    (request, response) => {
      const path = request.url ?? '/';
      requests.push(path);
      void route(path.split('?')[0]!, response).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    },
  );

  async function route(path: string, response: ServerResponse): Promise<void> {
    const fixtureType = FIXTURE_TYPES[path];
    if (fixtureType !== undefined) {
      const body = await readFile(new URL(`.${path}`, FIXTURES));
      response.writeHead(200, { 'content-type': fixtureType, 'content-length': body.length });
      response.end(body);
      return;
    }
    if (path === '/corrupt.pdf') {
      const body = (await readFile(new URL('./two-pages.pdf', FIXTURES))).subarray(0, 400);
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
      response.end(body);
      return;
    }
    if (path === '/html-as-jpeg') {
      response.writeHead(200, { 'content-type': 'image/jpeg' });
      response.end(SIGN_IN_PAGE);
      return;
    }
    if (path === '/hang') {
      response.writeHead(200, { 'content-type': 'image/jpeg' });
      response.flushHeaders();
      return;
    }
    if (path === '/trickle') {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      const timer = setInterval(() => response.write('%'), 100);
      timers.add(timer);
      response.once('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
      return;
    }
    if (path === '/endless' || path === '/endless-chunked') {
      response.writeHead(200, {
        'content-type': 'application/pdf',
        ...(path === '/endless' ? { 'content-length': TEN_GIB } : {}),
      });
      streamForever(response);
      return;
    }
    const chain = /^\/redirect\/chain\/(\d+)$/.exec(path);
    if (chain) return redirect(response, `/redirect/chain/${Number(chain[1]) + 1}`);
    if (path === '/redirect/to-fixture') return redirect(response, '/photo-gps.jpg');
    if (path === '/redirect/to-loopback') {
      return redirect(response, `https://127.0.0.1:${port}/photo-gps.jpg?via=loopback`);
    }
    if (path === '/redirect/to-http') {
      return redirect(response, `http://localhost:${port}/photo-gps.jpg`);
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `https://localhost:${port}`;

  return {
    origin,
    port,
    requests,
    url: (path) => `${origin}${path}`,
    async close() {
      for (const timer of timers) clearInterval(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(302, { location, 'content-length': 0 });
  response.end();
}

/** Writes as fast as the client reads (never ahead of it), until the connection goes. */
function streamForever(response: ServerResponse): void {
  const write = () => {
    while (!response.destroyed && response.write(CHUNK));
    if (!response.destroyed) response.once('drain', write);
  };
  write();
}
