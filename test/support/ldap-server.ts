import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'ldapts';
import { createTestCertificateAuthority } from './https-receiver.js';
import { freePort } from './stack.js';
import { DEADLINE_MS } from './wait.js';

/**
 * A throwaway OpenLDAP `slapd` (the Debian binary) for one test file: its own temporary
 * directory, free ports, a CA and server certificate of its own, seeded with the people
 * of test/fixtures/ldap/people.ldif (slapadd, before start) and the groups of
 * groups.ldif (over LDAP after start: slapadd bypasses the memberof overlay, so only
 * groups added to a running server give their members a `memberOf`).
 */
export interface LdapServer {
  /** ldap://127.0.0.1:PORT (StartTLS available when started with TLS). */
  readonly url: string;
  /** ldaps://127.0.0.1:PORT, or null when started without TLS. */
  readonly ldapsUrl: string | null;
  /** PEM of the CA that signed the server certificate (for 127.0.0.1 and localhost). */
  readonly caCertificate: string;
  readonly baseDn: string;
  readonly peopleDn: string;
  readonly groupsDn: string;
  readonly adminDn: string;
  readonly adminPassword: string;
  /** The read-only service account a directory client binds as. */
  readonly serviceDn: string;
  readonly servicePassword: string;
  /** Adds entries (LDIF) as the admin, through the running server (memberof applies). */
  add(ldif: string): Promise<void>;
  /** Applies LDIF change records (changetype: modify …) as the admin. */
  modify(ldif: string): Promise<void>;
  /** Deletes one entry as the admin. */
  remove(dn: string): Promise<void>;
  /** slapd's connection/operation log (`-d stats`), e.g. to see which BINDs it received. */
  log(): string;
  /** Kills slapd and removes its directory. */
  stop(): Promise<void>;
}

export const LDAP_BASE_DN = 'dc=example,dc=test';
const FIXTURES = new URL('../fixtures/ldap/', import.meta.url);
const SCHEMAS = ['core', 'cosine', 'inetorgperson', 'nis'];

export async function startLdapServer(options: { tls?: boolean } = {}): Promise<LdapServer> {
  const tls = options.tls ?? true;
  const dir = await mkdtemp(join(tmpdir(), 'ldap-server-'));
  const adminDn = `cn=admin,${LDAP_BASE_DN}`;
  const adminPassword = randomBytes(12).toString('hex');
  const serviceDn = `cn=service,${LDAP_BASE_DN}`;
  const servicePassword = randomBytes(12).toString('hex');
  const [port, tlsPort] = [await freePort(), tls ? await freePort() : null];
  const authority = await createTestCertificateAuthority();
  await authority.cleanup(); // only its PEMs are used; slapd reads copies in `dir`

  const files = {
    conf: join(dir, 'slapd.conf'),
    data: join(dir, 'data'),
    adminPassword: join(dir, 'admin.pw'),
    seed: join(dir, 'seed.ldif'),
  };
  await mkdir(files.data);
  // ldap-utils' -y reads the whole file as the password: no trailing newline.
  await writeFile(files.adminPassword, adminPassword, { mode: 0o600 });
  if (tls) {
    await writeFile(join(dir, 'ca.pem'), authority.caCertPem);
    await writeFile(join(dir, 'server.pem'), authority.leaf.certPem);
    await writeFile(join(dir, 'server.key'), authority.leaf.keyPem, { mode: 0o600 });
  }
  await writeFile(
    files.conf,
    slapdConf({ dir, adminDn, adminPasswordHash: ssha(adminPassword), serviceDn, tls }),
  );
  await writeFile(files.seed, await seedLdif(serviceDn, servicePassword));
  await run('slapadd', ['-q', '-f', files.conf, '-l', files.seed]);

  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = tlsPort === null ? null : `ldaps://127.0.0.1:${tlsPort}`;
  const listeners = [url, ldapsUrl].filter((value) => value !== null).join(' ');
  let output = '';
  const slapd = spawn('/usr/sbin/slapd', ['-f', files.conf, '-h', listeners, '-d', 'stats'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveServers.add(slapd);
  slapd.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  slapd.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let exitedEarly = false;
  const exited = new Promise<void>((resolve) =>
    slapd.once('close', () => {
      exitedEarly = true;
      liveServers.delete(slapd);
      resolve();
    }),
  );

  async function stop(): Promise<void> {
    if (!exitedEarly) slapd.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }

  try {
    await waitUntilAnswering(url, () => exitedEarly);
  } catch (error) {
    await stop();
    throw new Error(`slapd did not start (${String(error)}); its output:\n${output}`, {
      cause: error,
    });
  }

  const ldapUtil = async (command: string, args: string[], stdin?: string) =>
    run(command, ['-x', '-H', url, '-D', adminDn, '-y', files.adminPassword, ...args], stdin);
  const server: LdapServer = {
    url,
    ldapsUrl,
    caCertificate: authority.caCertPem,
    baseDn: LDAP_BASE_DN,
    peopleDn: `ou=people,${LDAP_BASE_DN}`,
    groupsDn: `ou=groups,${LDAP_BASE_DN}`,
    adminDn,
    adminPassword,
    serviceDn,
    servicePassword,
    add: async (ldif) => void (await ldapUtil('ldapadd', [], ldif)),
    modify: async (ldif) => void (await ldapUtil('ldapmodify', [], ldif)),
    remove: async (dn) => void (await ldapUtil('ldapdelete', [dn])),
    log: () => output,
    stop,
  };
  try {
    await server.add(await readFile(new URL('groups.ldif', FIXTURES), 'utf8'));
  } catch (error) {
    await stop();
    throw error;
  }
  return server;
}

function slapdConf(options: {
  dir: string;
  adminDn: string;
  adminPasswordHash: string;
  serviceDn: string;
  tls: boolean;
}): string {
  const { dir } = options;
  return [
    ...SCHEMAS.map((schema) => `include /etc/ldap/schema/${schema}.schema`),
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    'moduleload memberof',
    `pidfile ${join(dir, 'slapd.pid')}`,
    `argsfile ${join(dir, 'slapd.args')}`,
    ...(options.tls
      ? [
          `TLSCACertificateFile ${join(dir, 'ca.pem')}`,
          `TLSCertificateFile ${join(dir, 'server.pem')}`,
          `TLSCertificateKeyFile ${join(dir, 'server.key')}`,
        ]
      : []),
    'database mdb',
    'maxsize 16777216',
    `suffix "${LDAP_BASE_DN}"`,
    `rootdn "${options.adminDn}"`,
    `rootpw ${options.adminPasswordHash}`,
    `directory ${join(dir, 'data')}`,
    'overlay memberof',
    'memberof-refint true',
    // Passwords: only ever used to authenticate. Everything else: the service account reads,
    // people read themselves, anonymous sees nothing.
    'access to attrs=userPassword',
    '  by anonymous auth',
    '  by * none',
    'access to *',
    `  by dn.exact="${options.serviceDn}" read`,
    '  by self read',
    '  by * none',
    '',
  ].join('\n');
}

async function seedLdif(serviceDn: string, servicePassword: string): Promise<string> {
  const skeleton = [
    `dn: ${LDAP_BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example`,
    `dn: ou=people,${LDAP_BASE_DN}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ou=groups,${LDAP_BASE_DN}\nobjectClass: organizationalUnit\nou: groups`,
    `dn: ${serviceDn}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: service\nuserPassword: ${ssha(servicePassword)}`,
  ];
  const people = await readFile(new URL('people.ldif', FIXTURES), 'utf8');
  return `${skeleton.join('\n\n')}\n\n${people}`;
}

/** The {SSHA} scheme slapd understands: base64(SHA-1(password ‖ salt) ‖ salt). */
function ssha(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

async function waitUntilAnswering(url: string, hasExited: () => boolean): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    if (hasExited()) throw new Error('slapd exited');
    const client = new Client({ url, connectTimeout: 10_000, timeout: 10_000 });
    try {
      await client.search('', { scope: 'base', attributes: ['namingContexts'] });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    } finally {
      await client.unbind().catch(() => undefined);
    }
    await sleep(20);
  }
}

function run(command: string, args: string[], stdin?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} exited with ${code}:\n${output}`)),
    );
    child.stdin.end(stdin ?? '');
  });
}

/** Servers still running when the test process exits are killed, not left behind. */
const liveServers = new Set<ChildProcess>();
process.once('exit', () => {
  for (const server of liveServers) server.kill('SIGKILL');
});
