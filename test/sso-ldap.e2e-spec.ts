import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LdapDirectory,
  LdapSignInError,
  type LdapDirectoryOptions,
  ldapSettings,
  type LdapSettings,
  type LdapSignInErrorCode,
} from '#sso';
import type { AppSettings } from '#config';
import { DestinationPolicy, OutboundSockets } from '#outbound';
import { startLdapServer, type LdapServer } from './support/ldap-server.js';
import { freePort } from './support/stack.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { waitFor } from './support/wait.js';

/**
 * Directory sign-in (issue 17) against a real slapd: over ldaps:// and ldap:// + StartTLS,
 * seeded from test/fixtures/ldap (people.ldif, groups.ldif).
 */
const PASSWORDS = {
  ada: 'ada-analytical-engine',
  grace: 'grace-cobol-1959',
  linus: 'linus-no-groups',
  obrien: 'obrien-third-policeman',
};

let server: LdapServer;
let plainServer: LdapServer;
/** The test directories are on this machine: allowed as the operator would allow theirs. */
const allowedSockets = socketsAllowing(['127.0.0.1', 'localhost']);

function socketsAllowing(privateAllowlist: string[]): OutboundSockets {
  const settings = { outbound: { privateAllowlist } } as unknown as AppSettings;
  return new OutboundSockets(new DestinationPolicy(settings));
}
const directories: LdapDirectory[] = [];

beforeAll(async () => {
  [server, plainServer] = await Promise.all([startLdapServer(), startLdapServer({ tls: false })]);
});

afterAll(async () => {
  await Promise.all(directories.map((directory) => directory.close()));
  await Promise.all([server?.stop(), plainServer?.stop()]);
});

function settings(overrides: Partial<LdapSettings> = {}): LdapSettings {
  return ldapSettings({
    url: server.ldapsUrl!,
    caCertificate: server.caCertificate,
    bindDn: server.serviceDn,
    bindPassword: server.servicePassword,
    userBaseDn: server.peopleDn,
    userFilter: '(&(objectClass=inetOrgPerson)(uid={username}))',
    groupBaseDn: server.groupsDn,
    groupFilter: '(&(objectClass=groupOfNames)(member={dn}))',
    ...overrides,
  });
}

function directory(
  overrides: Partial<LdapSettings> = {},
  options: LdapDirectoryOptions = {},
): LdapDirectory {
  const created = new LdapDirectory(settings(overrides), allowedSockets, options);
  directories.push(created);
  return created;
}

/** Signs in and returns the LdapSignInError code it failed with (fails the test if it signed in). */
async function failureCode(
  target: LdapDirectory,
  username: string,
  password: string,
): Promise<LdapSignInErrorCode> {
  const error = await target.authenticate(username, password).then(
    (identity) => new Error(`signed in as ${identity.dn}`),
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof LdapSignInError)) throw error;
  if (password !== '') expect(error.message).not.toContain(password);
  return error.code;
}

/**
 * slapd's log up to now: an operation marks the point (a bind by linus on a connection of
 * its own) and the log is read once the marker shows, so nothing earlier is still in flight.
 */
async function logUntilNow(target: LdapServer): Promise<string> {
  const marker = new LdapDirectory(
    settings({ url: target.url, startTls: false, allowInsecure: true, caCertificate: null }),
    allowedSockets,
  );
  const before = target.log().split('BIND dn="uid=linus').length;
  await marker.authenticate('linus', PASSWORDS.linus).catch(() => undefined);
  await marker.close();
  return waitFor(async () => {
    const log = target.log();
    return log.split('BIND dn="uid=linus').length > before ? log : null;
  });
}

describe('signing in', () => {
  it('over ldaps:// returns the dn, email, name and groups (group filter)', async () => {
    const identity = await directory().authenticate('ada', PASSWORDS.ada);
    expect(identity).toEqual({
      dn: `uid=ada,${server.peopleDn}`,
      email: 'ada@example.test',
      name: 'Ada Lovelace',
      groups: expect.any(Array),
    });
    expect(identity.groups.toSorted()).toEqual(['admins', 'engineers']);
  });

  it('over ldap:// + StartTLS reads groups from memberOf', async () => {
    const target = directory({
      url: server.url,
      startTls: true,
      groupBaseDn: null,
      groupFilter: null,
    });
    const identity = await target.authenticate('grace', PASSWORDS.grace);
    expect(identity.email).toBe('grace@example.test');
    expect(identity.groups.toSorted()).toEqual(['cycle-a', 'engineers']);
    expect((await target.authenticate('linus', PASSWORDS.linus)).groups).toEqual([]);
  });

  it.each([
    ['group filter', {}],
    ['memberOf', { groupBaseDn: null, groupFilter: null }],
  ])('walks nested groups (%s), a cycle included', async (_, groupSource) => {
    const target = directory({ ...groupSource, nestedGroups: true });
    expect((await target.authenticate('ada', PASSWORDS.ada)).groups.toSorted()).toEqual([
      'admins',
      'engineers',
      'platform',
    ]);
    expect((await target.authenticate('grace', PASSWORDS.grace)).groups.toSorted()).toEqual([
      'cycle-a',
      'cycle-b',
      'engineers',
      'platform',
    ]);
  });

  it('uses the configured email and name attributes', async () => {
    const identity = await directory({ emailAttribute: 'uid', nameAttribute: 'sn' }).authenticate(
      'ada',
      PASSWORDS.ada,
    );
    expect([identity.email, identity.name]).toEqual(['ada', 'Lovelace']);
  });

  it('finds a username full of filter syntax by escaping it, and only that entry', async () => {
    const identity = await directory().authenticate('o(brien)*', PASSWORDS.obrien);
    expect(identity.dn).toBe(`uid=o(brien)*,${server.peopleDn}`);
  });

  it('serves concurrent sign-ins from a small service pool, each user bind on a connection of its own', async () => {
    const target = directory({}, { poolSize: 2 });
    const start = (await logUntilNow(server)).length;
    const identities = await Promise.all(
      Array.from({ length: 8 }, () => target.authenticate('ada', PASSWORDS.ada)),
    );
    expect(identities.map((identity) => identity.email)).toEqual(Array(8).fill('ada@example.test'));

    const binds = [
      ...(await logUntilNow(server))
        .slice(start)
        .matchAll(/conn=(\d+) op=\d+ BIND dn="([^"]*)" method/g),
    ].map(([, connection, dn]) => ({ connection, dn }));
    const userConnections = binds.filter(({ dn }) => dn === identities[0]!.dn);
    const serviceConnections = new Set(
      binds.filter(({ dn }) => dn === server.serviceDn).map(({ connection }) => connection),
    );
    expect(new Set(userConnections.map(({ connection }) => connection)).size).toBe(8);
    // The pool's two, and one of the marker sign-in that read the log.
    expect(serviceConnections.size).toBeLessThanOrEqual(3);
    for (const { connection } of userConnections) {
      expect(serviceConnections.has(connection)).toBe(false);
    }
  });
});

describe('refusing', () => {
  it('a wrong password (invalid_credentials) and an unknown user (user_not_found)', async () => {
    const target = directory();
    expect(await failureCode(target, 'ada', 'not-her-password')).toBe('invalid_credentials');
    expect(await failureCode(target, 'nobody', 'whatever')).toBe('user_not_found');
  });

  it('a user removed from the directory (user_not_found)', async () => {
    await server.add(
      [
        `dn: uid=leaver,${server.peopleDn}`,
        'objectClass: inetOrgPerson',
        'uid: leaver',
        'cn: Soon Gone',
        'sn: Gone',
        'mail: leaver@example.test',
        'userPassword: leaver-password',
        '',
      ].join('\n'),
    );
    const target = directory();
    expect((await target.authenticate('leaver', 'leaver-password')).email).toBe(
      'leaver@example.test',
    );
    await server.remove(`uid=leaver,${server.peopleDn}`);
    expect(await failureCode(target, 'leaver', 'leaver-password')).toBe('user_not_found');
  });

  it('a user filter matching several entries (ambiguous_user)', async () => {
    const target = directory({ userFilter: '(mail={username})' });
    expect(await failureCode(target, 'twins@example.test', 'twin-one')).toBe('ambiguous_user');
  });

  it.each(['*)(uid=*))(|(uid=*', '*', 'a*', '*)(|(objectClass=*)', 'ada)(uid=*', '$&', 'ada\\'])(
    'filter injection in the username %j finds nobody and signs in nobody',
    async (username) => {
      const target = directory();
      for (const password of Object.values(PASSWORDS)) {
        expect(await failureCode(target, username, password)).toBe('user_not_found');
      }
    },
  );

  it('an empty password before any bind (an unauthenticated bind would "succeed")', async () => {
    const target = directory();
    const start = (await logUntilNow(server)).length;
    expect(await failureCode(target, 'ada', '')).toBe('invalid_credentials');
    expect((await logUntilNow(server)).slice(start)).not.toMatch(/BIND dn="uid=ada,/);
  });

  it('usernames with NUL or over 256 characters', async () => {
    const target = directory();
    expect(await failureCode(target, 'ada\0', PASSWORDS.ada)).toBe('user_not_found');
    expect(await failureCode(target, 'a'.repeat(257), PASSWORDS.ada)).toBe('user_not_found');
  });
});

describe('transport security', () => {
  it('StartTLS refused by the server fails with tls_failed and never binds in plain text', async () => {
    const target = new LdapDirectory(
      settings({ url: plainServer.url, startTls: true, caCertificate: plainServer.caCertificate }),
      allowedSockets,
    );
    directories.push(target);
    expect(await failureCode(target, 'ada', PASSWORDS.ada)).toBe('tls_failed');
    const result = await target.test();
    expect(result.ok).toBe(false);
    expect(result.steps.map(({ step, ok }) => [step, ok])).toEqual([
      ['connect', true],
      ['tls', false],
    ]);
    // Both StartTLS requests reached the server and both connections closed; no BIND came.
    const log = await waitFor(async () => {
      const sinceStartTls = plainServer.log().split(/EXT oid=1\.3\.6\.1\.4\.1\.1466\.20037/);
      return sinceStartTls.length === 3 && sinceStartTls[2]!.includes(' closed')
        ? sinceStartTls.slice(1).join('')
        : null;
    });
    expect(log).not.toMatch(/ BIND dn=/);
  });

  it.each([
    ['ldaps://', () => ({})],
    ['StartTLS', () => ({ url: server.url, startTls: true })],
  ])('an unknown CA (%s, no ca_certificate) fails with tls_failed', async (_, transport) => {
    const target = directory({ ...transport(), caCertificate: null });
    expect(await failureCode(target, 'ada', PASSWORDS.ada)).toBe('tls_failed');
  });

  it('a wrong service password is a configuration problem (misconfigured)', async () => {
    const target = directory({ bindPassword: 'not-the-service-password' });
    expect(await failureCode(target, 'ada', PASSWORDS.ada)).toBe('misconfigured');
  });
});

describe('a directory the destination policy refuses', () => {
  let listener: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    // Counts who reaches it: a refused destination must never see a packet.
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  });

  afterAll(() => new Promise((resolve) => listener.close(resolve)));

  it.each([
    ['an address literal, ldaps://', () => `ldaps://127.0.0.1:${port}`, false],
    ['a name that resolves to loopback, ldaps://', () => `ldaps://localhost:${port}`, false],
    ['an address literal, StartTLS', () => `ldap://127.0.0.1:${port}`, true],
    ['a name that resolves to loopback, StartTLS', () => `ldap://localhost:${port}`, true],
  ])('is never connected to: %s', async (_, url, startTls) => {
    const target = new LdapDirectory(settings({ url: url(), startTls }), socketsAllowing([]));
    directories.push(target);
    const error = await target
      .authenticate('ada', PASSWORDS.ada)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(LdapSignInError);
    expect((error as LdapSignInError).code, String(error)).toBe('misconfigured');
    expect((error as LdapSignInError).message).toMatch(/destination is not allowed/);
    const result = await target.test();
    expect(result.steps[0]).toMatchObject({ step: 'connect', ok: false });
    expect(connections).toBe(0);
  });
});

describe('an unreachable directory', () => {
  let silent: Server;
  let silentUrl: string;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    // Accepts connections and never says a word: a hung directory or a black-holing firewall.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `127.0.0.1:${(silent.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it.each([
    ['ldaps://', () => ({ url: `ldaps://${silentUrl}` })],
    ['StartTLS', () => ({ url: `ldap://${silentUrl}`, startTls: true })],
  ])('that never answers (%s) is directory_unavailable', async (_, transport) => {
    const target = directory(transport(), { timeoutMs: 1_000 });
    expect(await failureCode(target, 'ada', PASSWORDS.ada)).toBe('directory_unavailable');
  });

  it('that never answers, with the default timeouts, is directory_unavailable', async () => {
    const target = directory({ url: `ldaps://${silentUrl}` });
    expect(await failureCode(target, 'ada', PASSWORDS.ada)).toBe('directory_unavailable');
  });

  it('that drops its connections fails, then serves again on fresh connections', async () => {
    const proxy = await TcpProxy.start({
      host: '127.0.0.1',
      port: Number(new URL(server.url).port),
    });
    try {
      const target = directory({ url: `ldap://127.0.0.1:${proxy.port}`, startTls: true });
      const signIn = async () => (await target.authenticate('ada', PASSWORDS.ada)).email;
      expect(await signIn()).toBe('ada@example.test');
      // The pooled connection dies while idle: the next sign-in gets a fresh one.
      await proxy.cut();
      await proxy.restore();
      expect(await signIn()).toBe('ada@example.test');
      await proxy.cut();
      expect(await failureCode(target, 'ada', PASSWORDS.ada)).toBe('directory_unavailable');
      await proxy.restore();
      expect(await signIn()).toBe('ada@example.test');
    } finally {
      await proxy.cut();
    }
  });

  it('that refuses connections is directory_unavailable, and test() says connect failed', async () => {
    const target = directory({ url: `ldaps://127.0.0.1:${await freePort()}` });
    expect(await failureCode(target, 'ada', PASSWORDS.ada)).toBe('directory_unavailable');
    const result = await target.test();
    expect(result).toEqual({
      ok: false,
      steps: [{ step: 'connect', ok: false, error: expect.any(String) }],
    });
  });
});

describe('test()', () => {
  it('reports every step of a working connection', async () => {
    for (const transport of [{}, { url: server.url, startTls: true }]) {
      expect(await directory(transport).test()).toEqual({
        ok: true,
        steps: [
          { step: 'connect', ok: true },
          { step: 'tls', ok: true },
          { step: 'bind', ok: true },
          { step: 'search', ok: true },
        ],
      });
    }
  });

  it('names the step that failed', async () => {
    const steps = async (overrides: Partial<LdapSettings>) =>
      (await directory(overrides).test()).steps.map(({ step, ok }) => `${step}:${ok}`);
    expect(await steps({ caCertificate: null })).toEqual(['connect:true', 'tls:false']);
    expect(await steps({ bindPassword: 'wrong' })).toEqual([
      'connect:true',
      'tls:true',
      'bind:false',
    ]);
    expect(await steps({ userBaseDn: `ou=nowhere,${server.baseDn}` })).toEqual([
      'connect:true',
      'tls:true',
      'bind:true',
      'search:false',
    ]);
    const failure = (await directory({ bindPassword: 'wrong' }).test()).steps.at(-1)?.error;
    expect(failure).toMatch(/service account/);
    expect(failure).not.toContain('wrong');
  });
});
