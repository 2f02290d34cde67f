// Webhook receiver for the benchmark's delivery phase, and the throwaway CA it serves a certificate of.
//
// Imported by webhooks.mjs: `createCertificates()` makes a CA (ECDSA P-256) and a leaf for 127.0.0.1
// signed by it, with @peculiar/x509 as in test/support/https-receiver.ts. The worker trusts that CA
// through WEBHOOK_EXTRA_CA_FILE; nothing turns certificate verification off.
//
// Run as a child process (node bench/webhook-receiver.mjs, with an IPC channel and the PEMs in
// BENCH_RECEIVER_CERT / BENCH_RECEIVER_KEY): a node:https server on 127.0.0.1 that answers every
// request 200 {"ok":true} as soon as its body is in, and records for each one when it arrived and
// the envelope's `created_at`. webhooks.mjs drives it over IPC:
//
//   → {cmd: 'reset'}                          forget everything; the next request is announced
//   ← {first: <epoch ms>}                     the first request since the reset arrived
//   → {cmd: 'wait', id, count, idleMs, maxMs} answer once `count` requests arrived — or once none
//                                             arrived for idleMs, at the latest after maxMs
//   ← {id, result: {...}}                     count, first/last arrival, latencies, samples, why
//                                             the wait ended (`count`, `idle` or `max`), …

import 'reflect-metadata'; // @peculiar/x509 resolves its algorithms through tsyringe
import { randomBytes, webcrypto } from 'node:crypto';
import { createServer } from 'node:https';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as x509 from '@peculiar/x509';

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY_MS = 24 * 60 * 60 * 1000;

const generateKeys = () => webcrypto.subtle.generateKey(ECDSA_P256, true, ['sign', 'verify']);
const serialNumber = () => {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f; // a positive INTEGER
  return bytes.toString('hex');
};

/** A throwaway CA and a leaf for 127.0.0.1 it signed: `{caPem, certPem, keyPem}`. */
export async function createCertificates() {
  x509.cryptoProvider.set(webcrypto);
  const caKeys = await generateKeys();
  const notBefore = new Date(Date.now() - DAY_MS);
  const notAfter = new Date(Date.now() + 7 * DAY_MS);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=Benchmark webhook CA ${randomBytes(4).toString('hex')}, O=Session Analysis Service bench`,
    notBefore,
    notAfter,
    signingAlgorithm: ECDSA_P256,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = await generateKeys();
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: 'CN=127.0.0.1',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ECDSA_P256,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    caPem: ca.toString('pem'),
    certPem: leaf.toString('pem'),
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
  };
}

// ------------------------------------------------------------------ the receiver (child process)

function serve() {
  const OK = Buffer.from('{"ok":true}');
  const now = () => performance.timeOrigin + performance.now(); // epoch ms, sub-millisecond
  let arrivals = []; // epoch ms when the body was complete
  let latencies = []; // arrival − envelope created_at (ms); NaN when the body had none
  let seen = new Set(); // path + webhook-id, to count duplicates
  let duplicates = 0;
  let connections = 0; // TLS connections opened since the reset
  let samples = new Map(); // path → the first request's headers and body
  let announced = false;
  let lastArrival = Date.now(); // wall clock of the last arrival (or reset), for idle waits
  const waiters = new Set();

  const server = createServer(
    {
      cert: process.env.BENCH_RECEIVER_CERT,
      key: process.env.BENCH_RECEIVER_KEY,
      minVersion: 'TLSv1.2',
    },
    (request, response) => {
      const chunks = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.once('end', () => {
        const at = now();
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': OK.length,
        });
        response.end(OK);
        const raw = Buffer.concat(chunks).toString('utf8');
        let created = Number.NaN;
        try {
          created = Date.parse(JSON.parse(raw).created_at);
        } catch {
          // not JSON: counted, without a latency
        }
        const key = `${request.url} ${request.headers['webhook-id']}`;
        if (seen.has(key)) duplicates += 1;
        else seen.add(key);
        if (!samples.has(request.url))
          samples.set(request.url, { headers: request.headers, rawBody: raw });
        arrivals.push(at);
        latencies.push(at - created);
        lastArrival = Date.now();
        if (!announced) {
          announced = true;
          process.send({ first: at });
        }
        for (const check of waiters) check();
      });
    },
  );
  server.keepAliveTimeout = 30_000;
  server.on('secureConnection', () => (connections += 1));

  const result = () => ({
    count: arrivals.length,
    firstAt: arrivals[0] ?? null, // arrivals are in order: the clock is monotonic
    lastAt: arrivals.at(-1) ?? null,
    latencies,
    duplicates,
    connections,
    samples: Object.fromEntries(samples),
  });

  process.on('message', (message) => {
    if (message?.cmd === 'reset') {
      arrivals = [];
      latencies = [];
      seen = new Set();
      duplicates = 0;
      connections = 0;
      samples = new Map();
      announced = false;
      lastArrival = Date.now();
      process.send({ reset: true });
    } else if (message?.cmd === 'wait') {
      const { id, count, idleMs, maxMs } = message;
      const started = Date.now();
      const finish = (ended) => {
        clearInterval(timer);
        waiters.delete(check);
        process.send({ id, result: { ...result(), ended, waitedMs: Date.now() - started } });
      };
      const check = () => arrivals.length >= count && finish('count');
      // Progress, not a fixed deadline: a slow machine delivers later, a stalled one not at all.
      const timer = setInterval(() => {
        const now = Date.now();
        if (now - Math.max(started, lastArrival) > idleMs) finish('idle');
        else if (now - started > maxMs) finish('max');
      }, 250);
      waiters.add(check);
      check();
    }
  });
  process.on('disconnect', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => process.send({ ready: server.address().port }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve();
