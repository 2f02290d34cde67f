import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS_REFERENCE } from './settings-reference.js';
import { parseSettings, SettingsError } from './settings.js';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

function problemWith(env: Record<string, string>): string {
  try {
    parseSettings({ ...base, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as SettingsError).setting;
  }
  throw new Error('expected a SettingsError');
}

/** Every variable `parseSettings` reads, found by letting it read an environment that records what it is asked. */
function variablesRead(): string[] {
  const read = new Set<string>();
  const env = new Proxy(base as Record<string, string>, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  parseSettings(env);
  return [...read].sort();
}

/** Read, but documented as aliases of the settings that replaced them, or set by the image. */
const UNDOCUMENTED = new Set(['NODE_ENV', 'WEBHOOK_EXTRA_CA_FILE', 'WEBHOOK_PRIVATE_ALLOWLIST']);
const ROOT = join(import.meta.dirname, '../../..');

describe('settings', () => {
  it('are each in .env.example and in the settings reference, which names nothing else', () => {
    const envExample = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const names = variablesRead().filter((name) => !UNDOCUMENTED.has(name));
    expect(names.length).toBeGreaterThan(40);
    expect(names.filter((name) => !new RegExp(`^#?${name}=`, 'm').test(envExample))).toEqual([]);
    const documented = SETTINGS_REFERENCE.map((setting) => setting.name).sort();
    expect(documented).toEqual(names);
  });

  it('have the defaults the settings reference gives: setting one explicitly changes nothing', () => {
    const defaults = parseSettings(base);
    const wrong = SETTINGS_REFERENCE.filter((setting) => setting.default !== undefined)
      .filter((setting) => {
        const explicit = parseSettings({ ...base, [setting.name]: setting.default });
        return JSON.stringify(explicit) !== JSON.stringify(defaults);
      })
      .map((setting) => `${setting.name}=${setting.default}`);
    expect(wrong).toEqual([]);
    // The check can fail: another value does change the settings.
    expect(parseSettings({ ...base, PORT: '3001' })).not.toEqual(defaults);
  });

  it('start in production with the key that seals the secrets at rest', () => {
    const secret = 'a-production-secret-of-32-characters';
    expect(
      parseSettings({ ...base, NODE_ENV: 'production', SIGNING_KEY_SECRET: secret }),
    ).toMatchObject({ signingKeySecret: secret });
  });

  it('have the documented defaults', () => {
    expect(parseSettings(base)).toMatchObject({
      databaseReplicaUrls: [],
      databaseReplicaMaxLagMs: 5_000,
      trustedProxies: ['loopback'],
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'sas',
      port: 3000,
      publicUrl: 'http://localhost:3000',
      sandboxUrl: 'http://localhost:3000/sandbox',
      bootstrapClient: null,
      bootstrapAdmin: null,
      logLevel: 'info',
      simulatedStepMs: 500,
      analystClockScale: 1,
      analystDeadlineSweepMs: 10_000,
      queueLocks: { lockDurationMs: 30_000, stalledIntervalMs: 30_000 },
      bodyLimitBytes: 1024 * 1024,
      historyImportMaxBytes: 64 * 1024 * 1024,
      signingKeySecret: null,
      signingKeyRotationDays: 90,
      accessTokenCache: { entries: 10_000, maxBytes: 16 * 1024 * 1024 },
      wsHeartbeatSeconds: 30,
      wsMaxConnectionsPerOrganization: 200,
      webhooks: {
        retryScale: 1,
        endpointConcurrency: 10,
        workerConcurrency: 100,
        sourceAddresses: [],
      },
      outbound: {
        extraCaPem: null,
        privateAllowlist: [],
        materialMaxBytes: 20 * 1024 * 1024,
        materialTimeoutMs: 30_000,
      },
      eventRetentionDays: 30,
      reportRetentionDays: 7,
      rateLimits: {
        enabled: true,
        onRedisFailure: 'allow',
        windowScale: 1,
        tokenPerClient: 120,
        tokenPerAddress: 600,
        signInPerAddress: 30,
        anonymousPerAddress: 600,
      },
    });
  });

  it('derive PUBLIC_URL from PORT and drop a trailing slash', () => {
    expect(parseSettings({ ...base, PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(parseSettings({ ...base, PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe(
      'https://api.example.com',
    );
  });

  it('put the sandbox under {PUBLIC_URL}/sandbox, or on an origin of its own', () => {
    const publicUrl = { ...base, PUBLIC_URL: 'https://api.example.com/' };
    expect(parseSettings(publicUrl).sandboxUrl).toBe('https://api.example.com/sandbox');
    expect(
      parseSettings({ ...publicUrl, SANDBOX_PUBLIC_URL: 'https://sandbox.example.com/' })
        .sandboxUrl,
    ).toBe('https://sandbox.example.com');
    for (const [value, message] of [
      ['https://sandbox.example.com/v1', /origin without a path/],
      ['https://api.example.com:8443', /another hostname than PUBLIC_URL/],
      ['ftp://sandbox.example.com', /must use one of/],
    ] as const) {
      expect(() => parseSettings({ ...publicUrl, SANDBOX_PUBLIC_URL: value })).toThrow(
        new RegExp(`SANDBOX_PUBLIC_URL.*${message.source}`),
      );
    }
  });

  describe('read replicas', () => {
    it('are a comma-separated list of PostgreSQL URLs, none when unset or empty', () => {
      expect(
        parseSettings({
          ...base,
          DATABASE_REPLICA_URLS:
            ' postgres://reader@10.0.0.2:5432/x ,postgresql://reader:secret@10.0.0.3/x',
          DATABASE_REPLICA_MAX_LAG_MS: '250',
        }),
      ).toMatchObject({
        databaseReplicaUrls: [
          'postgres://reader@10.0.0.2:5432/x',
          'postgresql://reader:secret@10.0.0.3/x',
        ],
        databaseReplicaMaxLagMs: 250,
      });
      expect(parseSettings({ ...base, DATABASE_REPLICA_URLS: '  ' }).databaseReplicaUrls).toEqual(
        [],
      );
    });

    it.each([
      ['postgres://a@h/x,', 'entry 2 is empty'],
      ['postgres://a@h/x,,postgres://b@h/x', 'entry 2 is empty'],
      ['not a url', 'entry 1 is not a valid URL'],
      ['postgres://a@h/x,mysql://reader:hunter2@h/x', 'entry 2 must use one of postgres:'],
    ])('stop on %j naming the setting and the entry, never its text', (value, problem) => {
      expect(problemWith({ DATABASE_REPLICA_URLS: value })).toBe('DATABASE_REPLICA_URLS');
      try {
        parseSettings({ ...base, DATABASE_REPLICA_URLS: value });
      } catch (error) {
        expect((error as SettingsError).message).toContain(problem);
        expect((error as SettingsError).message).not.toContain('hunter2');
      }
    });
  });

  describe('Redis Cluster nodes', () => {
    it('are a comma-separated host:port list, none when unset or empty', () => {
      expect(parseSettings(base).redisClusterNodes).toEqual([]);
      expect(parseSettings({ ...base, REDIS_CLUSTER_NODES: ' ' }).redisClusterNodes).toEqual([]);
      expect(
        parseSettings({
          ...base,
          REDIS_CLUSTER_NODES: ' 10.0.0.5:6379 ,redis-1.internal:7001,[::1]:7002',
        }).redisClusterNodes,
      ).toEqual([
        { host: '10.0.0.5', port: 6379 },
        { host: 'redis-1.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ]);
    });

    it.each([
      ['10.0.0.5:6379,', 'entry 2 is empty'],
      ['10.0.0.5', 'entry 1 "10.0.0.5" is not host:port'],
      ['10.0.0.5:6379,redis-1:0', 'entry 2 "redis-1:0" is not host:port'],
      ['10.0.0.5:70000', 'entry 1 "10.0.0.5:70000" is not host:port'],
      ['redis://10.0.0.5:6379', 'entry 1 "redis://10.0.0.5:6379" is not host:port'],
      ['10.0.0.5:6379,user:hunter2@10.0.0.6:6379', 'entry 2 is not host:port'],
    ])('stop on %j naming the setting and the bad entry', (value, problem) => {
      expect(problemWith({ REDIS_CLUSTER_NODES: value })).toBe('REDIS_CLUSTER_NODES');
      expect(() => parseSettings({ ...base, REDIS_CLUSTER_NODES: value })).toThrow(problem);
      expect(() => parseSettings({ ...base, REDIS_CLUSTER_NODES: value })).not.toThrow('hunter2');
    });
  });

  describe('DNS resolvers', () => {
    it('are the system’s when unset, else host:port servers as node:dns setServers takes them', () => {
      expect(parseSettings(base).dnsResolvers).toEqual([]);
      expect(
        parseSettings({ ...base, DNS_RESOLVERS: ' 10.0.0.53:53, [::1]:5353 ' }).dnsResolvers,
      ).toEqual(['10.0.0.53:53', '[::1]:5353']);
    });

    it.each(['10.0.0.53', '10.0.0.53:53,', 'udp://10.0.0.53:53'])(
      'stop on %j naming the setting',
      (value) => {
        expect(problemWith({ DNS_RESOLVERS: value })).toBe('DNS_RESOLVERS');
      },
    );
  });

  it('read the webhook settings', () => {
    const { webhooks } = parseSettings({ ...base, WEBHOOK_RETRY_SCALE: '0.001' });
    expect(webhooks.retryScale).toBe(0.001);
  });

  it('read the published webhook source addresses, one spelling each', () => {
    const read = (value: string) =>
      parseSettings({ ...base, WEBHOOK_SOURCE_ADDRESSES: value }).webhooks.sourceAddresses;
    expect(read(' 203.0.113.10, 203.0.113.11 ,')).toEqual(['203.0.113.10', '203.0.113.11']);
    expect(read('2001:DB8:0:0::10,2001:db8::11')).toEqual(['2001:db8::10', '2001:db8::11']);
    expect(read(' ')).toEqual([]);
  });

  it.each([
    ['203.0.113.10,gateway.internal', '"gateway.internal" is not an IP address'],
    ['203.0.113.0/24', '"203.0.113.0/24" is not an IP address'],
    ['127.1', '"127.1" is not an IP address'],
    ['0.0.0.0', '"0.0.0.0" is the unspecified address'],
    ['203.0.113.10,203.0.113.10', 'lists an address twice'],
    ['2001:db8::10,2001:DB8::10', 'lists an address twice'],
    ['203.0.113.10,2001:db8::10', 'mixes IPv4 and IPv6 addresses'],
  ])('refuse WEBHOOK_SOURCE_ADDRESSES=%s: %s', (value, problem) => {
    expect(() => parseSettings({ ...base, WEBHOOK_SOURCE_ADDRESSES: value })).toThrow(
      `Invalid setting WEBHOOK_SOURCE_ADDRESSES: ${problem}`,
    );
  });

  it('read the outbound settings', () => {
    const { outbound } = parseSettings({
      ...base,
      OUTBOUND_PRIVATE_ALLOWLIST: ' 127.0.0.1, 10.0.0.0/8 ,Receiver.Internal',
      REFERENCE_MATERIAL_MAX_BYTES: '5mb',
      REFERENCE_MATERIAL_TIMEOUT_MS: '2000',
    });
    expect(outbound).toMatchObject({
      privateAllowlist: ['127.0.0.1', '10.0.0.0/8', 'receiver.internal'],
      materialMaxBytes: 5 * 1024 * 1024,
      materialTimeoutMs: 2000,
    });
  });

  describe('outbound settings under their older WEBHOOK_* names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-spec-'));
    const caFile = (name: string, body: string) => {
      const path = join(dir, name);
      writeFileSync(path, `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`);
      return path;
    };
    const oldCa = caFile('old.pem', 'old');
    const newCa = caFile('new.pem', 'new');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('are read when only the older names are set', () => {
      const { outbound } = parseSettings({
        ...base,
        WEBHOOK_EXTRA_CA_FILE: oldCa,
        WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
      });
      expect(outbound.extraCaPem).toContain('old');
      expect(outbound.privateAllowlist).toEqual(['127.0.0.1']);
    });

    it('give way to the new names when both are set', () => {
      const { outbound } = parseSettings({
        ...base,
        WEBHOOK_EXTRA_CA_FILE: oldCa,
        OUTBOUND_EXTRA_CA_FILE: newCa,
        WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
        OUTBOUND_PRIVATE_ALLOWLIST: 'localhost',
      });
      expect(outbound.extraCaPem).toContain('new');
      expect(outbound.privateAllowlist).toEqual(['localhost']);
    });

    it('count as unset when empty, as in .env.example', () => {
      const { outbound } = parseSettings({
        ...base,
        OUTBOUND_EXTRA_CA_FILE: '',
        WEBHOOK_EXTRA_CA_FILE: oldCa,
        OUTBOUND_PRIVATE_ALLOWLIST: '',
        WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
      });
      expect(outbound.extraCaPem).toContain('old');
      expect(outbound.privateAllowlist).toEqual(['127.0.0.1']);
    });

    it.each([
      [{ WEBHOOK_EXTRA_CA_FILE: '/nonexistent/ca.pem' }, 'WEBHOOK_EXTRA_CA_FILE'],
      [{ WEBHOOK_PRIVATE_ALLOWLIST: 'bad host!' }, 'WEBHOOK_PRIVATE_ALLOWLIST'],
      [
        { WEBHOOK_EXTRA_CA_FILE: oldCa, OUTBOUND_EXTRA_CA_FILE: '/nonexistent/ca.pem' },
        'OUTBOUND_EXTRA_CA_FILE',
      ],
      [
        { WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1', OUTBOUND_PRIVATE_ALLOWLIST: '10.0.0.0/33' },
        'OUTBOUND_PRIVATE_ALLOWLIST',
      ],
    ])('stop on %j naming the variable read, %s', (env, setting) => {
      expect(problemWith(env)).toBe(setting);
    });
  });

  it('read the trusted proxies: addresses, CIDR ranges and Express range names', () => {
    expect(
      parseSettings({ ...base, TRUSTED_PROXIES: ' 10.1.2.3, 172.16.0.0/12,UniqueLocal, ::1 ' })
        .trustedProxies,
    ).toEqual(['10.1.2.3', '172.16.0.0/12', 'uniquelocal', '::1']);
  });

  it('read the queue lock settings', () => {
    expect(
      parseSettings({ ...base, QUEUE_LOCK_DURATION_MS: '5000', QUEUE_STALLED_INTERVAL_MS: '1000' })
        .queueLocks,
    ).toEqual({ lockDurationMs: 5_000, stalledIntervalMs: 1_000 });
    // BullMQ takes a job back only once its lock has run out, so a check less frequent than
    // the lock is allowed: it only delays the takeover.
    expect(
      parseSettings({
        ...base,
        QUEUE_LOCK_DURATION_MS: '10000',
        QUEUE_STALLED_INTERVAL_MS: '60000',
      }).queueLocks,
    ).toEqual({ lockDurationMs: 10_000, stalledIntervalMs: 60_000 });
  });

  it('read sizes with units', () => {
    expect(parseSettings({ ...base, BODY_LIMIT: '512kb' }).bodyLimitBytes).toBe(512 * 1024);
    expect(parseSettings({ ...base, BODY_LIMIT: '2mb' }).bodyLimitBytes).toBe(2 * 1024 * 1024);
    expect(
      parseSettings({ ...base, HISTORY_IMPORT_MAX_BYTES: '512mb' }).historyImportMaxBytes,
    ).toBe(512 * 1024 * 1024);
  });

  it.each([
    [{ DATABASE_URL: '' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: 'abc' }, 'PORT'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ SIMULATED_STEP_MS: '-1' }, 'SIMULATED_STEP_MS'],
    [{ RATE_LIMITS: 'maybe' }, 'RATE_LIMITS'],
    [{ RATE_LIMIT_ON_REDIS_FAILURE: 'panic' }, 'RATE_LIMIT_ON_REDIS_FAILURE'],
    [{ RATE_LIMIT_WINDOW_SCALE: '2' }, 'RATE_LIMIT_WINDOW_SCALE'],
    [{ TOKEN_RATE_PER_CLIENT: '0' }, 'TOKEN_RATE_PER_CLIENT'],
    [{ SIMULATED_STEP_MS: '1.5' }, 'SIMULATED_STEP_MS'],
    [{ BOOTSTRAP_CLIENT_ID: 'dev-client' }, 'BOOTSTRAP_CLIENT_SECRET'],
    [{ BOOTSTRAP_CLIENT_SECRET: 'a-long-enough-secret' }, 'BOOTSTRAP_CLIENT_ID'],
    [
      { BOOTSTRAP_CLIENT_ID: 'dev-client', BOOTSTRAP_CLIENT_SECRET: 'short' },
      'BOOTSTRAP_CLIENT_SECRET',
    ],
    [
      { BOOTSTRAP_CLIENT_ID: 'bad id!', BOOTSTRAP_CLIENT_SECRET: 'a-long-enough-secret' },
      'BOOTSTRAP_CLIENT_ID',
    ],
    [{ BODY_LIMIT: 'huge' }, 'BODY_LIMIT'],
    [{ HISTORY_IMPORT_MAX_BYTES: '2048mb' }, 'HISTORY_IMPORT_MAX_BYTES'],
    [{ HISTORY_IMPORT_MAX_BYTES: '10' }, 'HISTORY_IMPORT_MAX_BYTES'],
    [{ REDIS_PREFIX: 'a:b' }, 'REDIS_PREFIX'],
    [{ SIGNING_KEY_SECRET: 'short' }, 'SIGNING_KEY_SECRET'],
    // Production keeps no secret in clear: it will not start without the key that seals them.
    [{ NODE_ENV: 'production' }, 'SIGNING_KEY_SECRET'],
    [{ WS_HEARTBEAT_SECONDS: '0' }, 'WS_HEARTBEAT_SECONDS'],
    [{ WS_MAX_CONNECTIONS_PER_ORGANIZATION: '0' }, 'WS_MAX_CONNECTIONS_PER_ORGANIZATION'],
    [{ OUTBOUND_EXTRA_CA_FILE: '/nonexistent/ca.pem' }, 'OUTBOUND_EXTRA_CA_FILE'],
    [{ OUTBOUND_EXTRA_CA_FILE: '/etc/hostname' }, 'OUTBOUND_EXTRA_CA_FILE'],
    [{ OUTBOUND_PRIVATE_ALLOWLIST: '10.0.0.0/33' }, 'OUTBOUND_PRIVATE_ALLOWLIST'],
    [{ OUTBOUND_PRIVATE_ALLOWLIST: 'bad host!' }, 'OUTBOUND_PRIVATE_ALLOWLIST'],
    [{ TRUSTED_PROXIES: 'proxy.internal' }, 'TRUSTED_PROXIES'],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES'],
    [{ TRUSTED_PROXIES: ' , ' }, 'TRUSTED_PROXIES'],
    [{ REFERENCE_MATERIAL_MAX_BYTES: 'big' }, 'REFERENCE_MATERIAL_MAX_BYTES'],
    [{ REFERENCE_MATERIAL_MAX_BYTES: '512mb' }, 'REFERENCE_MATERIAL_MAX_BYTES'],
    [{ REFERENCE_MATERIAL_TIMEOUT_MS: '0' }, 'REFERENCE_MATERIAL_TIMEOUT_MS'],
    [{ REFERENCE_MATERIAL_TIMEOUT_MS: '1.5' }, 'REFERENCE_MATERIAL_TIMEOUT_MS'],
    [{ WEBHOOK_RETRY_SCALE: '0' }, 'WEBHOOK_RETRY_SCALE'],
    [{ WEBHOOK_RETRY_SCALE: 'fast' }, 'WEBHOOK_RETRY_SCALE'],
    [{ EVENT_RETENTION_DAYS: '0' }, 'EVENT_RETENTION_DAYS'],
    [{ REPORT_RETENTION_DAYS: '0' }, 'REPORT_RETENTION_DAYS'],
    [{ AUDIT_RETENTION_DAYS: '0' }, 'AUDIT_RETENTION_DAYS'],
    [{ ACCESS_TOKEN_CACHE_ENTRIES: '-1' }, 'ACCESS_TOKEN_CACHE_ENTRIES'],
    [{ ACCESS_TOKEN_CACHE_ENTRIES: 'many' }, 'ACCESS_TOKEN_CACHE_ENTRIES'],
    [{ ACCESS_TOKEN_CACHE_MB: '0' }, 'ACCESS_TOKEN_CACHE_MB'],
    [{ DATABASE_REPLICA_MAX_LAG_MS: '50' }, 'DATABASE_REPLICA_MAX_LAG_MS'],
    [{ DATABASE_REPLICA_MAX_LAG_MS: 'soon' }, 'DATABASE_REPLICA_MAX_LAG_MS'],
    [{ QUEUE_LOCK_DURATION_MS: '1000' }, 'QUEUE_LOCK_DURATION_MS'],
    [{ QUEUE_LOCK_DURATION_MS: '30s' }, 'QUEUE_LOCK_DURATION_MS'],
    [{ QUEUE_LOCK_DURATION_MS: '7200000' }, 'QUEUE_LOCK_DURATION_MS'],
    [{ QUEUE_STALLED_INTERVAL_MS: '0' }, 'QUEUE_STALLED_INTERVAL_MS'],
    [{ QUEUE_STALLED_INTERVAL_MS: '999' }, 'QUEUE_STALLED_INTERVAL_MS'],
    [{ QUEUE_STALLED_INTERVAL_MS: '1.5' }, 'QUEUE_STALLED_INTERVAL_MS'],
  ])('stop on %j naming %s', (env, setting) => {
    expect(problemWith(env)).toBe(setting);
  });
});
