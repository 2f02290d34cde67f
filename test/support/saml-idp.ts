import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  authSourcesPhp,
  configPhp,
  idpHostedPhp,
  spRemotePhp,
  type SamlIdpUser,
  type ServiceProviderEntry,
} from '../fixtures/saml/simplesamlphp-config.js';
import { freePort } from './stack.js';
import { waitFor } from './wait.js';

export type { SamlIdpUser, ServiceProviderEntry };

/**
 * A throwaway SimpleSAMLphp IdP (Debian's `simplesamlphp` under `php -S`),
 * one per test file: its own temp config dir, key pair and port. It signs
 * responses and assertions with RSA-SHA256 and sends the user's email as an
 * emailAddress NameID. See /work/shared/TESTING.md "SAML: a real IdP".
 */
export interface SamlIdp {
  baseUrl: string;
  metadataUrl: string;
  /** The IdP metadata as served. */
  metadataXml: string;
  ssoUrl: string;
  entityId: string;
  /** PEM: the IdP's signing certificate. */
  certificate: string;
  /** PEM: the IdP's signing key, for tests that forge messages "from" it. */
  privateKey: string;
  /**
   * Registers (or replaces, by entity id) an SP the IdP answers; with `certificate` the IdP
   * checks that SP's AuthnRequest signatures. SimpleSAMLphp rereads it on every request.
   */
  setServiceProvider(sp: ServiceProviderEntry): Promise<void>;
  /** Signs `username` in through the IdP's login form, as a browser would; returns what it POSTs to the ACS. */
  login(
    authorizeUrl: string,
    username: string,
    password: string,
  ): Promise<{ SAMLResponse: string; RelayState?: string; acsUrl: string }>;
  /** The IdP's log (errors go there, not to the browser). */
  log(): Promise<string>;
  stop(): Promise<void>;
}

const WWW = '/usr/share/simplesamlphp/www';
const execFileAsync = promisify(execFile);

/** A self-signed RSA key pair made by the `openssl` CLI: `{ privateKey, certificate }` as PEM. */
export async function selfSignedCertificate(
  commonName: string,
): Promise<{ privateKey: string; certificate: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'saml-cert-'));
  try {
    await execFileAsync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '30',
      '-subj',
      `/CN=${commonName}`,
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    return {
      privateKey: await readFile(join(dir, 'key.pem'), 'utf8'),
      certificate: await readFile(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function startSamlIdp(options: { users: SamlIdpUser[] }): Promise<SamlIdp> {
  const dir = await mkdtemp(join(tmpdir(), 'saml-idp-'));
  for (const sub of ['cert', 'metadata', 'log', 'data', 'tmp', 'sessions']) {
    await mkdir(join(dir, sub));
  }
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const keys = await selfSignedCertificate(`saml-idp-${port}`);
  await writeFile(join(dir, 'cert', 'idp.key'), keys.privateKey, { mode: 0o600 });
  await writeFile(join(dir, 'cert', 'idp.crt'), keys.certificate);
  await writeFile(join(dir, 'config.php'), configPhp(dir, baseUrl));
  await writeFile(join(dir, 'authsources.php'), authSourcesPhp(options.users));
  await writeFile(join(dir, 'metadata', 'saml20-idp-hosted.php'), idpHostedPhp());
  await writeFile(join(dir, 'metadata', 'saml20-sp-remote.php'), '<?php\n');

  const serviceProviders = new Map<string, ServiceProviderEntry>();
  let output = '';
  const server: ChildProcess = spawn(
    'php',
    [
      '-d',
      `session.save_path=${join(dir, 'sessions')}`,
      // The built-in server is not the "cli" SAPI, so OPcache is on and looks at a file's
      // timestamp at most every 2 s: a service provider rewritten just before a sign-in would
      // still be read as it was. The tests rewrite the metadata between sign-ins.
      '-d',
      'opcache.enable=0',
      '-S',
      `127.0.0.1:${port}`,
      '-t',
      WWW,
    ],
    {
      env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  liveServers.add(server);
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) =>
    server.once('close', () => {
      liveServers.delete(server);
      resolve();
    }),
  );

  const metadataUrl = `${baseUrl}/saml2/idp/metadata.php`;
  let metadataXml: string;
  try {
    metadataXml = await waitFor(async () => {
      if (server.exitCode !== null) throw new Error(`php exited early:\n${output}`);
      const response = await fetch(metadataUrl).catch(() => null);
      if (response?.status !== 200) return null;
      return response.text();
    });
  } catch (error) {
    server.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    baseUrl,
    metadataUrl,
    metadataXml,
    ssoUrl: `${baseUrl}/saml2/idp/SSOService.php`,
    entityId: metadataUrl,
    certificate: keys.certificate,
    privateKey: keys.privateKey,
    async setServiceProvider(sp) {
      serviceProviders.set(sp.entityId, sp);
      await writeFile(
        join(dir, 'metadata', 'saml20-sp-remote.php'),
        `<?php\n${[...serviceProviders.values()].map(spRemotePhp).join('')}`,
      );
    },
    login: (authorizeUrl, username, password) => login(authorizeUrl, username, password),
    log: () => readFile(join(dir, 'log', 'simplesamlphp.log'), 'utf8').catch(() => ''),
    async stop() {
      server.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A browser's worth of HTTP: a cookie jar and hand-followed redirects. */
async function login(
  authorizeUrl: string,
  username: string,
  password: string,
): Promise<{ SAMLResponse: string; RelayState?: string; acsUrl: string }> {
  const jar = new Map<string, string>();
  const request = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader(jar) },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return response;
  };
  const follow = async (url: string, init?: RequestInit) => {
    let response = await request(url, init);
    for (let hops = 0; response.status >= 300 && response.status < 400; hops++) {
      if (hops > 10) throw new Error('the IdP redirected more than 10 times');
      url = new URL(response.headers.get('location')!, url).toString();
      response = await request(url);
    }
    return { url, response, html: await response.text() };
  };

  const loginPage = await follow(authorizeUrl);
  if (loginPage.response.status !== 200) {
    throw new Error(`the IdP answered the AuthnRequest with ${loginPage.response.status}`);
  }
  const authState = hiddenInput(loginPage.html, 'AuthState');
  if (authState === null) throw new Error('the IdP did not show its login form');
  const submitted = await follow(loginPage.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password, AuthState: authState }).toString(),
  });
  const samlResponse = hiddenInput(submitted.html, 'SAMLResponse');
  if (samlResponse === null) {
    throw new Error(
      `the IdP did not answer with a SAMLResponse (status ${submitted.response.status})`,
    );
  }
  const action = /<form[^>]*\saction="([^"]+)"/i.exec(submitted.html)?.[1];
  return {
    SAMLResponse: samlResponse,
    RelayState: hiddenInput(submitted.html, 'RelayState') ?? undefined,
    acsUrl: decodeHtml(action ?? ''),
  };
}

function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** The value of a hidden form field, whatever the attribute order. */
function hiddenInput(html: string, name: string): string | null {
  for (const [tag] of html.matchAll(/<input\b[^>]*>/gi)) {
    if (!new RegExp(`\\sname="${name}"`).test(tag)) continue;
    const value = /\svalue="([^"]*)"/.exec(tag)?.[1];
    if (value !== undefined) return decodeHtml(value);
  }
  return null;
}

function decodeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Servers still running when the test process exits are killed, not left behind. */
const liveServers = new Set<ChildProcess>();
process.once('exit', () => {
  for (const server of liveServers) server.kill('SIGKILL');
});
