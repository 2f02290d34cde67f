import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './stack.js';
import { waitFor } from './wait.js';

/**
 * A throwaway SimpleSAMLphp IdP (Debian's `simplesamlphp` under `php -S`),
 * one per test file: its own temp config dir, key pair and port. It signs
 * responses and assertions with RSA-SHA256 and sends the user's email as an
 * emailAddress NameID. See /work/shared/TESTING.md "SAML: a real IdP".
 */
export interface SamlIdpUser {
  username: string;
  password: string;
  email: string;
  name: string;
  groups: string[];
}

export interface ServiceProviderEntry {
  entityId: string;
  acsUrl: string;
  /** PEM: the SP's signing certificate; the IdP then refuses unsigned or badly signed AuthnRequests. */
  certificate?: string;
  /** PEM: the IdP encrypts assertions to it. */
  encryptionCertificate?: string;
}

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
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
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
    ['-d', `session.save_path=${join(dir, 'sessions')}`, '-S', `127.0.0.1:${port}`, '-t', WWW],
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
    }, 30_000);
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

/** PHP single-quoted string literal. */
function php(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function phpList(values: string[]): string {
  return `[${values.map(php).join(', ')}]`;
}

function configPhp(dir: string, baseUrl: string): string {
  return `<?php
$config = [
    'baseurlpath' => ${php(`${baseUrl}/`)},
    'certdir' => ${php(join(dir, 'cert') + '/')},
    'loggingdir' => ${php(join(dir, 'log') + '/')},
    'datadir' => ${php(join(dir, 'data') + '/')},
    'tempdir' => ${php(join(dir, 'tmp'))},
    'metadatadir' => ${php(join(dir, 'metadata') + '/')},
    'secretsalt' => ${php(randomBytes(16).toString('hex'))},
    'auth.adminpassword' => ${php(randomBytes(16).toString('hex'))},
    'technicalcontact_name' => 'Test',
    'technicalcontact_email' => 'test@example.test',
    'timezone' => 'UTC',
    'logging.level' => SimpleSAML\\Logger::DEBUG,
    'logging.handler' => 'file',
    'logging.logfile' => 'simplesamlphp.log',
    'enable.saml20-idp' => true,
    'module.enable' => ['exampleauth' => true, 'core' => true, 'saml' => true, 'admin' => true],
    'store.type' => 'phpsession',
    'session.cookie.secure' => false,
    'session.cookie.samesite' => null,
    'language.cookie.secure' => false,
    'admin.checkforupdates' => false,
];
`;
}

function authSourcesPhp(users: SamlIdpUser[]): string {
  const entries = users.map(
    (user) =>
      `        ${php(`${user.username}:${user.password}`)} => [
            'uid' => ${phpList([user.username])},
            'email' => ${phpList([user.email])},
            'displayName' => ${phpList([user.name])},
            'groups' => ${phpList(user.groups)},
        ],`,
  );
  return `<?php
$config = [
    'admin' => ['core:AdminPassword'],
    'test-users' => [
        'exampleauth:UserPass',
${entries.join('\n')}
    ],
];
`;
}

function idpHostedPhp(): string {
  return `<?php
$metadata['__DYNAMIC:1__'] = [
    'host' => '__DEFAULT__',
    'privatekey' => 'idp.key',
    'certificate' => 'idp.crt',
    'auth' => 'test-users',
    'saml20.sign.response' => true,
    'saml20.sign.assertion' => true,
    'signature.algorithm' => 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    'NameIDFormat' => '${EMAIL_FORMAT}',
    'attributes.NameFormat' => 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
    'authproc' => [
        10 => [
            'class' => 'saml:AttributeNameID',
            'attribute' => 'email',
            'Format' => '${EMAIL_FORMAT}',
        ],
    ],
];
`;
}

function spRemotePhp(sp: ServiceProviderEntry): string {
  const key = (pem: string, use: 'signing' | 'encryption') =>
    `        ['type' => 'X509Certificate', 'signing' => ${use === 'signing'}, 'encryption' => ${use === 'encryption'}, 'X509Certificate' => ${php(pemBody(pem))}],\n`;
  const keys =
    (sp.certificate ? key(sp.certificate, 'signing') : '') +
    (sp.encryptionCertificate ? key(sp.encryptionCertificate, 'encryption') : '');
  return `$metadata[${php(sp.entityId)}] = [
    'AssertionConsumerService' => ${php(sp.acsUrl)},
    'NameIDFormat' => '${EMAIL_FORMAT}',
    'keys' => [
${keys}    ],
    'validate.authnrequest' => ${sp.certificate !== undefined},
    'assertion.encryption' => ${sp.encryptionCertificate !== undefined},
];
`;
}

function pemBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
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
