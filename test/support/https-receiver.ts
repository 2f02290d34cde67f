// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerOptions } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEADLINE_MS } from './wait.js';

/**
 * Webhook receivers for e2e tests: a real `node:https` server whose certificate comes
 * from a throwaway CA. The service under test trusts that CA through configuration
 * (WEBHOOK_EXTRA_CA_FILE = `ca.caFile`), never by turning verification off.
 */

x509.cryptoProvider.set(webcrypto);

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DEFAULT_HOSTS = ['127.0.0.1', '::1', 'localhost'];
const DAY_MS = 24 * 60 * 60 * 1000;

/** A certificate and its private key, PEM-encoded: what `https.createServer` takes. */
export interface LeafCertificate {
  certPem: string;
  keyPem: string;
  /** Hosts in its SubjectAltName. */
  hosts: string[];
}

export interface LeafOptions {
  /** IP addresses and DNS names for the SubjectAltName (default 127.0.0.1, ::1, localhost). */
  hosts?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

export interface TestCertificateAuthority {
  caCertPem: string;
  caKeyPem: string;
  /** A temporary file holding `caCertPem`: the value of WEBHOOK_EXTRA_CA_FILE. */
  caFile: string;
  /** A leaf for 127.0.0.1, ::1 and localhost, signed by this CA. */
  leaf: LeafCertificate;
  /** Signs another leaf with this CA (other hosts, an expired one, …). */
  issueLeaf(options?: LeafOptions): Promise<LeafCertificate>;
  /** Removes the temporary directory of `caFile`. */
  cleanup(): Promise<void>;
}

interface Authority {
  name: string;
  keys: webcrypto.CryptoKeyPair;
  cert: x509.X509Certificate;
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ECDSA_P256, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0]! &= 0x7f; // a positive INTEGER
  return bytes.toString('hex');
}

async function createAuthority(commonName: string): Promise<Authority> {
  const keys = await generateKeys();
  const name = `CN=${commonName}, O=Session Analysis Service tests`;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + 30 * DAY_MS),
    signingAlgorithm: ECDSA_P256,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { name, keys, cert };
}

async function issueLeaf(
  authority: Authority,
  options: LeafOptions = {},
): Promise<LeafCertificate> {
  const hosts = options.hosts ?? DEFAULT_HOSTS;
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${hosts[0] ?? 'localhost'}`,
    issuer: authority.cert.subject,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY_MS),
    notAfter: options.notAfter ?? new Date(Date.now() + 30 * DAY_MS),
    signingAlgorithm: ECDSA_P256,
    publicKey: keys.publicKey,
    signingKey: authority.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        hosts.map((host) => ({ type: isIpAddress(host) ? 'ip' : 'dns', value: host })),
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(authority.keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey), hosts };
}

function isIpAddress(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/** A throwaway CA (ECDSA P-256), a leaf it signed for the loopback names, and the CA in a file. */
export async function createTestCertificateAuthority(): Promise<TestCertificateAuthority> {
  const authority = await createAuthority(`Test webhook CA ${randomBytes(4).toString('hex')}`);
  const caCertPem = authority.cert.toString('pem');
  const dir = await mkdtemp(join(tmpdir(), 'webhook-ca-'));
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, `${caCertPem}\n`);
  return {
    caCertPem,
    caKeyPem: await privateKeyPem(authority.keys.privateKey),
    caFile,
    leaf: await issueLeaf(authority),
    issueLeaf: (options) => issueLeaf(authority, options),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A leaf for the loopback names signed by a CA of its own that nobody trusts: a
 * receiver serving it must be refused by a sender that trusts only our test CA.
 */
export async function createUntrustedLeafCertificate(
  options: LeafOptions = {},
): Promise<LeafCertificate> {
  return issueLeaf(await createAuthority('Untrusted test CA'), options);
}

/** One request as the receiver got it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query string, e.g. `/hooks?x=1`. */
  path: string;
  /** Header names in lower case, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The body exactly as sent (UTF-8): what a signature is computed over. */
  rawBody: string;
  /** The sender's address as the socket saw it (e.g. 127.0.0.2): what an allow-list checks. */
  remoteAddress: string | undefined;
  receivedAt: Date;
  /** When the response was sent; null while pending or when the client went away first. */
  respondedAt: Date | null;
  /** The client closed the connection before the response was sent (a sender's timeout). */
  clientAborted: boolean;
}

export interface ScriptedResponse {
  /** Default 200. */
  status?: number;
  headers?: OutgoingHttpHeaders;
  /** A string is sent as is; anything else as JSON. Default: `{"ok":true}` when no status is given, else empty. */
  body?: unknown;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
}

export type Responder = (
  request: ReceivedRequest,
  index: number,
) => ScriptedResponse | Promise<ScriptedResponse>;

export interface HttpsReceiver {
  /** `https://HOST:PORT/PATH`, e.g. https://127.0.0.1:41234/hooks */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in arrival order (recorded once its body is complete). */
  readonly requests: ReceivedRequest[];
  /** Requests being answered right now. */
  readonly inFlight: number;
  /** The most requests ever answered at once (since start or the last reset()). */
  readonly maxInFlight: number;
  /** Scripts the responses: a function of the request (and its index), or one fixed response. */
  respondWith(responder: Responder | ScriptedResponse): void;
  /** Resolves with the requests once at least `count` have arrived (by default within DEADLINE_MS). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Forgets the requests and maxInFlight, and goes back to the default response. */
  reset(): void;
  /** Stops listening, drops open connections and cancels delayed responses. */
  close(): Promise<void>;
}

export interface HttpsReceiverOptions {
  /** The server certificate, e.g. `ca.leaf` or createUntrustedLeafCertificate(). */
  certificate: LeafCertificate;
  /** Address to listen on and to put in the URL (default 127.0.0.1). */
  host?: string;
  /** Path of `url` (default /hooks); requests to any path are recorded. */
  path?: string;
  /** Initial responder (default 200 `{"ok":true}`). */
  respond?: Responder | ScriptedResponse;
  /** Extra TLS server options. */
  tls?: ServerOptions;
}

const DEFAULT_RESPONSE: ScriptedResponse = { status: 200, body: { ok: true } };

export async function startHttpsReceiver(options: HttpsReceiverOptions): Promise<HttpsReceiver> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/hooks';
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const closing = new AbortController();
  let responder: Responder = toResponder(options.respond ?? DEFAULT_RESPONSE);
  let inFlight = 0;
  let maxInFlight = 0;

  const server = createServer(
    {
      minVersion: 'TLSv1.2',
      ...options.tls,
      cert: options.certificate.certPem,
      key: options.certificate.keyPem,
    },
    (request, response) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        rawBody: '',
        remoteAddress: request.socket.remoteAddress,
        receivedAt: new Date(),
        respondedAt: null,
        clientAborted: false,
      };
      // In flight until the response is sent (synchronously with end(), so a client that has
      // its response never sees it counted) or until the connection goes away first.
      let settled = false;
      const settle = (aborted: boolean) => {
        if (settled) return;
        settled = true;
        inFlight -= 1;
        if (aborted) received.clientAborted = true;
        else received.respondedAt = new Date();
      };
      response.once('close', () => settle(true));
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.once('end', () => {
        received.rawBody = Buffer.concat(chunks).toString('utf8');
        received.receivedAt = new Date();
        const index = requests.push(received) - 1;
        for (const wake of waiters) wake();
        void answer(index);
      });

      async function answer(index: number): Promise<void> {
        try {
          const scripted = await responder(received, index);
          if (scripted.delayMs)
            await sleep(scripted.delayMs, undefined, { signal: closing.signal });
          if (response.destroyed) return;
          const body =
            scripted.body ?? (scripted.status === undefined ? DEFAULT_RESPONSE.body : '');
          const text = typeof body === 'string' ? body : JSON.stringify(body);
          const headers: OutgoingHttpHeaders = {
            ...(typeof body === 'string' ? {} : { 'content-type': 'application/json' }),
            'content-length': Buffer.byteLength(text),
            ...scripted.headers,
          };
          response.writeHead(scripted.status ?? 200, headers);
          settle(false);
          response.end(text);
        } catch (error) {
          if (closing.signal.aborted) return;
          response.destroy(error instanceof Error ? error : new Error(String(error)));
        }
      }
    },
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `https://${urlHost}:${port}${path}`,
    port,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    respondWith(next) {
      responder = toResponder(next);
    },
    waitForRequests(count, timeoutMs = DEADLINE_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          cleanup();
          resolve([...requests]);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `expected ${count} webhook request(s) within ${timeoutMs} ms, got ${requests.length}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    reset() {
      requests.length = 0;
      maxInFlight = inFlight;
      responder = toResponder(DEFAULT_RESPONSE);
    },
    async close() {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function toResponder(value: Responder | ScriptedResponse): Responder {
  return typeof value === 'function' ? value : () => value;
}
