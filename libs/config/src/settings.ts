import { join, resolve } from 'node:path';
import {
  byteSize,
  choice,
  type Env,
  firstSet,
  integer,
  localAddresses,
  optionalPort,
  pemFile,
  positiveNumber,
  privateAllowlist,
  trustedProxies,
  SettingsError,
  text,
  url,
  urlList,
} from './settings-values.js';

export { SettingsError } from './settings-values.js';

/**
 * Every setting of the service, parsed and validated in one place. Nothing else
 * reads process.env: a bad value stops the process with a message naming it.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Settings {
  databaseUrl: string;
  databasePoolMax: number;
  /** Streaming replicas serving list, search and analytics reads; empty: the primary serves every read. */
  databaseReplicaUrls: string[];
  /** A replica further behind the primary than this serves no reads until it catches up. */
  databaseReplicaMaxLagMs: number;
  redisUrl: string;
  /**
   * Nodes of a Redis Cluster (any few of its masters: the rest are discovered).
   * When set, every Redis use goes to the cluster and REDIS_URL only lends its
   * user, password and TLS (`rediss:`) to the nodes. Empty: the one REDIS_URL.
   */
  redisClusterNodes: RedisNode[];
  /** Namespace of every Redis key and channel, so several deployments (or test runs) can share a Redis. */
  redisPrefix: string;
  port: number;
  publicUrl: string;
  /**
   * The sandbox's address: its API is at `{sandboxUrl}/v1` and `/v2`.
   * `{PUBLIC_URL}/sandbox` (told apart by path), or SANDBOX_PUBLIC_URL, an
   * origin of its own (told apart by host).
   */
  sandboxUrl: string;
  bootstrapClient: { clientId: string; clientSecret: string } | null;
  /** The local account created (or reset) at start-up in the operator organisation. */
  bootstrapAdmin: { email: string; password: string } | null;
  logLevel: LogLevel;
  simulatedStepMs: number;
  /**
   * How much faster than the wall clock analyst deadlines run: a deadline is
   * `duration_minutes` / this after tasking. 1 in production; tests and
   * demonstrations raise it so a 30-minute deadline passes in seconds.
   */
  analystClockScale: number;
  /** How often the worker closes analyst work whose deadline has passed. */
  analystDeadlineSweepMs: number;
  workerConcurrency: number;
  /** BullMQ's job locks and stalled-job check, for every queue worker of the worker app. */
  queueLocks: QueueLockSettings;
  workerHealthPort: number | null;
  shutdownGraceMs: number;
  /** Proxies whose X-Forwarded-* headers are believed (Express's `trust proxy`). */
  trustedProxies: string[];
  bodyLimitBytes: number;
  /** Where the built dashboard is (dist/dashboard of the working directory by default). */
  dashboardDir: string;
  /** Largest history import (POST /v2/history/import), which is streamed rather than parsed whole. */
  historyImportMaxBytes: number;
  signingKeySecret: string | null;
  /**
   * DNS servers (`host:port`) that SSO domain verification asks for TXT
   * records; empty: the system's resolver.
   */
  dnsResolvers: string[];
  /** Age at which the worker replaces the token-signing key; 0 turns automatic rotation off. */
  signingKeyRotationDays: number;
  accessTokenCache: AccessTokenCacheSettings;
  /** Seconds between pings on live-update WebSockets; a socket that missed the last pong is dropped. */
  wsHeartbeatSeconds: number;
  /** Live-update WebSockets one organisation may hold open per mode, across every API instance. */
  wsMaxConnectionsPerOrganization: number;
  webhooks: WebhookSettings;
  outbound: OutboundSettings;
  /** Days events (and their delivery records) are kept. */
  eventRetentionDays: number;
  /** Days a generated report is kept; the worker deletes expired ones and they answer 404. */
  reportRetentionDays: number;
  /** Days audit events are kept; the worker's hourly sweep deletes older ones. */
  auditRetentionDays: number;
  rateLimits: RateLimitSettings;
}

/**
 * How soon the jobs of a worker that died (SIGKILL, lost host) go to another
 * worker. A running job holds a lock that its worker renews every half of
 * `lockDurationMs`; every `stalledIntervalMs` BullMQ moves active jobs whose
 * lock has run out back to waiting. A job whose worker lives keeps its lock,
 * whatever the two values: they only set how long a dead worker's jobs wait,
 * about lockDurationMs + stalledIntervalMs.
 */
export interface QueueLockSettings {
  lockDurationMs: number;
  stalledIntervalMs: number;
}

/**
 * The API's in-process cache of verified access tokens (VerifiedTokenCache):
 * at most `entries` tokens and about `maxBytes` of memory; `entries` 0 turns it off.
 */
export interface AccessTokenCacheSettings {
  entries: number;
  maxBytes: number;
}

export interface RateLimitSettings {
  /** Off only for measuring the limiter's cost: the plan and tier limits are not enforced. */
  enabled: boolean;
  /** What a request gets while Redis cannot count it: `allow` (and a warning in the log) or `deny` (503). */
  onRedisFailure: 'allow' | 'deny';
  /** Multiplies every window (minute, hour, day); tests use a small fraction. Windows are at least 1 s. */
  windowScale: number;
  /** Requests a minute to the token, introspection and revocation endpoints per client. */
  tokenPerClient: number;
  /** Requests a minute to those endpoints per source address, whatever the client. */
  tokenPerAddress: number;
  /** Sign-in form submissions a minute per source address. */
  signInPerAddress: number;
  /**
   * Requests a minute per source address of those no credential is known for
   * (none, an invalid one): public endpoints, 401s, unknown routes.
   */
  anonymousPerAddress: number;
}

export interface WebhookSettings {
  /** Multiplies every retry delay (tests use a small fraction). */
  retryScale: number;
  /** Deliveries one endpoint may have in flight at once, across all workers. */
  endpointConcurrency: number;
  /** Deliveries one worker process sends at once. */
  workerConcurrency: number;
  /**
   * The published source addresses (WEBHOOK_SOURCE_ADDRESSES): local addresses of one family
   * that every delivery's socket is bound to, in turn. Empty: the host's default address.
   */
  sourceAddresses: string[];
}

/** How the service connects outward: webhook deliveries and reference material alike. */
export interface OutboundSettings {
  /** PEM of CAs trusted for outward HTTPS in addition to Node's bundled roots. */
  extraCaPem: string | null;
  /** Private destinations allowed anyway: exact host names, addresses and CIDR ranges. */
  privateAllowlist: string[];
  /** Largest item of reference material fetched, in bytes; a larger one fails. */
  materialMaxBytes: number;
  /** Milliseconds the whole fetch of one item may take (connect, redirects, body). */
  materialTimeoutMs: number;
}

export interface RedisNode {
  host: string;
  port: number;
}

/** `host:port,host:port,…` (none when unset); an error names the setting and the bad entry. */
function hostPorts(env: Env, name: string, example: string): RedisNode[] {
  const entries = (text(env, name) ?? '').split(',').map((entry) => entry.trim());
  if (entries.length === 1 && entries[0] === '') return [];
  return entries.map((entry, index) => {
    const where = `entry ${index + 1}`;
    if (entry === '') throw new SettingsError(name, `${where} is empty`);
    // host:port, or [IPv6]:port; no scheme, user or password (those come from REDIS_URL).
    const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(entry);
    const port = match ? Number(match[3]) : NaN;
    if (!match || port < 1 || port > 65535) {
      // An entry with credentials in it is not echoed (the password belongs in REDIS_URL).
      const shown = entry.includes('@') ? '' : ` "${entry}"`;
      throw new SettingsError(name, `${where}${shown} is not host:port (e.g. ${example})`);
    }
    return { host: (match[1] ?? match[2])!, port };
  });
}

function bootstrapClient(env: Env): Settings['bootstrapClient'] {
  const clientId = text(env, 'BOOTSTRAP_CLIENT_ID');
  const clientSecret = text(env, 'BOOTSTRAP_CLIENT_SECRET');
  if (clientId === undefined && clientSecret === undefined) return null;
  if (clientId === undefined)
    throw new SettingsError(
      'BOOTSTRAP_CLIENT_ID',
      'is required when BOOTSTRAP_CLIENT_SECRET is set',
    );
  if (clientSecret === undefined)
    throw new SettingsError(
      'BOOTSTRAP_CLIENT_SECRET',
      'is required when BOOTSTRAP_CLIENT_ID is set',
    );
  if (!/^[A-Za-z0-9._~-]{3,128}$/.test(clientId)) {
    throw new SettingsError(
      'BOOTSTRAP_CLIENT_ID',
      'must be 3 to 128 characters of letters, digits, ".", "_", "~" or "-"',
    );
  }
  if (clientSecret.length < 16) {
    throw new SettingsError('BOOTSTRAP_CLIENT_SECRET', 'must be at least 16 characters long');
  }
  return { clientId, clientSecret };
}

function bootstrapAdmin(env: Env): Settings['bootstrapAdmin'] {
  const email = text(env, 'BOOTSTRAP_ADMIN_EMAIL');
  const password = env.BOOTSTRAP_ADMIN_PASSWORD; // not trimmed: spaces may be part of a password
  if (email === undefined && !password) return null;
  if (email === undefined)
    throw new SettingsError(
      'BOOTSTRAP_ADMIN_EMAIL',
      'is required when BOOTSTRAP_ADMIN_PASSWORD is set',
    );
  if (!password)
    throw new SettingsError(
      'BOOTSTRAP_ADMIN_PASSWORD',
      'is required when BOOTSTRAP_ADMIN_EMAIL is set',
    );
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
    throw new SettingsError('BOOTSTRAP_ADMIN_EMAIL', 'is not an email address');
  }
  if (password.length < 12) {
    throw new SettingsError('BOOTSTRAP_ADMIN_PASSWORD', 'must be at least 12 characters long');
  }
  return { email: email.toLowerCase(), password };
}

function logLevel(env: Env): LogLevel {
  const raw = (text(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new SettingsError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return raw as LogLevel;
}

function redisPrefix(env: Env): string {
  const value = text(env, 'REDIS_PREFIX') ?? 'sas';
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(value)) {
    throw new SettingsError('REDIS_PREFIX', 'must be 1 to 32 letters, digits, "_" or "-"');
  }
  return value;
}

/**
 * The sandbox on the deployment's own origin under `/sandbox`, or on an
 * origin of its own: a second hostname pointing at the same deployment, told
 * apart from the live one by the request's host, so it cannot share it.
 */
function sandboxPublicUrl(env: Env, publicUrl: string): string {
  if (text(env, 'SANDBOX_PUBLIC_URL') === undefined) return `${publicUrl}/sandbox`;
  const name = 'SANDBOX_PUBLIC_URL';
  const sandbox = new URL(url(env, name, undefined, ['http:', 'https:']));
  if (sandbox.pathname !== '/' || sandbox.search !== '' || sandbox.hash !== '') {
    throw new SettingsError(
      name,
      'must be an origin without a path, such as https://sandbox.example.com',
    );
  }
  if (sandbox.hostname === new URL(publicUrl).hostname) {
    throw new SettingsError(
      name,
      'must have another hostname than PUBLIC_URL: requests are told apart by host (leave it unset to serve the sandbox under {PUBLIC_URL}/sandbox)',
    );
  }
  return sandbox.origin;
}

export function parseSettings(env: Env): Settings {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${port}`, ['http:', 'https:']).replace(
    /\/+$/,
    '',
  );
  const sandboxUrl = sandboxPublicUrl(env, publicUrl);
  const signingKeySecret = text(env, 'SIGNING_KEY_SECRET') ?? null;
  if (signingKeySecret !== null && signingKeySecret.length < 32) {
    throw new SettingsError('SIGNING_KEY_SECRET', 'must be at least 32 characters long');
  }
  // Without it, signing keys, webhook secrets and stored responses would sit in the database in clear.
  if (signingKeySecret === null && text(env, 'NODE_ENV') === 'production') {
    throw new SettingsError(
      'SIGNING_KEY_SECRET',
      'is required when NODE_ENV=production: it encrypts the secrets the service keeps (at least 32 characters, e.g. `openssl rand -hex 32`)',
    );
  }
  return {
    databaseUrl: url(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 500),
    databaseReplicaUrls: urlList(env, 'DATABASE_REPLICA_URLS', ['postgres:', 'postgresql:']),
    databaseReplicaMaxLagMs: integer(env, 'DATABASE_REPLICA_MAX_LAG_MS', 5_000, 100, 600_000),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisClusterNodes: hostPorts(env, 'REDIS_CLUSTER_NODES', '10.0.0.5:6379'),
    dnsResolvers: hostPorts(env, 'DNS_RESOLVERS', '10.0.0.53:53').map(({ host, port }) =>
      host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`,
    ),
    redisPrefix: redisPrefix(env),
    port,
    publicUrl,
    sandboxUrl,
    bootstrapClient: bootstrapClient(env),
    bootstrapAdmin: bootstrapAdmin(env),
    logLevel: logLevel(env),
    simulatedStepMs: integer(env, 'SIMULATED_STEP_MS', 500, 0, 600_000),
    analystClockScale: integer(env, 'ANALYST_CLOCK_SCALE', 1, 1, 100_000),
    analystDeadlineSweepMs: integer(env, 'ANALYST_DEADLINE_SWEEP_MS', 10_000, 100, 3_600_000),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 50, 1, 1000),
    queueLocks: {
      // At least 5 s: the lock is renewed every half of it, and a busy event loop that misses
      // a renewal makes a live job look stalled (run twice, failed the second time).
      lockDurationMs: integer(env, 'QUEUE_LOCK_DURATION_MS', 30_000, 5_000, 3_600_000),
      // At least 1 s: each check is a script over the queue's active jobs, per queue and worker.
      stalledIntervalMs: integer(env, 'QUEUE_STALLED_INTERVAL_MS', 30_000, 1_000, 3_600_000),
    },
    workerHealthPort: optionalPort(env, 'WORKER_HEALTH_PORT'),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    trustedProxies: trustedProxies(env, 'TRUSTED_PROXIES'),
    bodyLimitBytes: byteSize(env, 'BODY_LIMIT', 1024 ** 2),
    dashboardDir: resolve(text(env, 'DASHBOARD_DIR') ?? join('dist', 'dashboard')),
    historyImportMaxBytes: byteSize(env, 'HISTORY_IMPORT_MAX_BYTES', 64 * 1024 ** 2, 1024),
    signingKeySecret,
    signingKeyRotationDays: integer(env, 'SIGNING_KEY_ROTATION_DAYS', 90, 0, 3650),
    wsHeartbeatSeconds: integer(env, 'WS_HEARTBEAT_SECONDS', 30, 1, 3600),
    wsMaxConnectionsPerOrganization: integer(
      env,
      'WS_MAX_CONNECTIONS_PER_ORGANIZATION',
      200,
      1,
      1_000_000,
    ),
    webhooks: {
      retryScale: positiveNumber(env, 'WEBHOOK_RETRY_SCALE', 1, 100),
      endpointConcurrency: integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 10, 1, 1000),
      workerConcurrency: integer(env, 'WEBHOOK_WORKER_CONCURRENCY', 100, 1, 10_000),
      sourceAddresses: localAddresses(env, 'WEBHOOK_SOURCE_ADDRESSES'),
    },
    outbound: {
      // WEBHOOK_*: the names from before reference material, when only webhooks went outward.
      extraCaPem: pemFile(env, firstSet(env, ['OUTBOUND_EXTRA_CA_FILE', 'WEBHOOK_EXTRA_CA_FILE'])),
      privateAllowlist: privateAllowlist(
        env,
        firstSet(env, ['OUTBOUND_PRIVATE_ALLOWLIST', 'WEBHOOK_PRIVATE_ALLOWLIST']),
      ),
      materialMaxBytes: byteSize(env, 'REFERENCE_MATERIAL_MAX_BYTES', 20 * 1024 ** 2, 256),
      materialTimeoutMs: integer(env, 'REFERENCE_MATERIAL_TIMEOUT_MS', 30_000, 100, 600_000),
    },
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650),
    reportRetentionDays: integer(env, 'REPORT_RETENTION_DAYS', 7, 1, 365),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 365, 1, 3650),
    accessTokenCache: {
      entries: integer(env, 'ACCESS_TOKEN_CACHE_ENTRIES', 10_000, 0, 1_000_000),
      maxBytes: integer(env, 'ACCESS_TOKEN_CACHE_MB', 16, 1, 1024) * 1024 * 1024,
    },
    rateLimits: {
      enabled: choice(env, 'RATE_LIMITS', ['on', 'off'], 'on') === 'on',
      onRedisFailure: choice(env, 'RATE_LIMIT_ON_REDIS_FAILURE', ['allow', 'deny'], 'allow'),
      windowScale: positiveNumber(env, 'RATE_LIMIT_WINDOW_SCALE', 1, 1),
      tokenPerClient: integer(env, 'TOKEN_RATE_PER_CLIENT', 120, 1, 1_000_000),
      tokenPerAddress: integer(env, 'TOKEN_RATE_PER_ADDRESS', 600, 1, 1_000_000),
      signInPerAddress: integer(env, 'SIGN_IN_RATE_PER_ADDRESS', 30, 1, 1_000_000),
      anonymousPerAddress: integer(env, 'ANONYMOUS_RATE_PER_ADDRESS', 600, 1, 1_000_000),
    },
  };
}
