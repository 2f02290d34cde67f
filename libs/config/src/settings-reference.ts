/**
 * What each setting means, for docs/reference/settings.md, which is generated
 * from this list (`npm run docs:reference`). A test holds the list to the
 * code: every variable parseSettings reads is here and nothing else is, and
 * each `default` is the parser's own (setting it explicitly changes nothing).
 * Add the entry beside the setting in settings.ts.
 */
export interface SettingReference {
  name: string;
  /** The value the setting takes when unset, as it would be written in the environment. */
  default?: string;
  /** Said instead of `default` when the default is no single value: required, empty, derived. */
  defaultText?: string;
  /** Said after the default, in brackets. */
  defaultNote?: string;
  meaning: string;
}

export const SETTINGS_REFERENCE: readonly SettingReference[] = [
  {
    name: 'DATABASE_URL',
    defaultText: '—',
    defaultNote:
      'required by `start:api`, `start:worker`, `db:migrate`; `npm start` runs an embedded PostgreSQL when unset',
    meaning: 'PostgreSQL URL; the database is created if missing',
  },
  {
    name: 'DATABASE_POOL_MAX',
    default: '10',
    meaning: 'connections per process',
  },
  {
    name: 'DATABASE_REPLICA_URLS',
    defaultText: '_(empty)_',
    meaning:
      "comma-separated `postgres://` URLs of streaming read replicas: list, search and analytics reads go to them in turn, with read-your-writes per organisation and mode ([docs/scaling-postgres.md](../scaling-postgres.md)); empty: the primary serves every read. Errors name the entry's position, never the URL (it may hold a password)",
  },
  {
    name: 'DATABASE_REPLICA_MAX_LAG_MS',
    default: '5000',
    meaning:
      "a replica further behind the primary than this (100–600000) serves no reads until it catches up; also how long a write's position is remembered (this + 1 s)",
  },
  {
    name: 'REDIS_URL',
    default: 'redis://127.0.0.1:6379',
    meaning:
      'Redis for queues, pub/sub and counters (`rediss://` for TLS). With a password: `redis://:PASSWORD@host:6379`, or `redis://USER:PASSWORD@host:6379` for an ACL user (percent-encode reserved characters); give Redis one — see [Security](../security.md#redis-password)',
  },
  {
    name: 'REDIS_PREFIX',
    default: 'sas',
    defaultNote: '`npm start` on a shared Redis: the prefix kept in `.data/redis-prefix`',
    meaning: 'namespace of every Redis key, so deployments or test runs can share one Redis',
  },
  {
    name: 'REDIS_CLUSTER_NODES',
    defaultText: '_(empty)_',
    meaning:
      'comma-separated `host:port` nodes of a Redis Cluster (a few masters are enough; the rest are discovered): every Redis use (queues, pub/sub, counters) goes to the cluster, and `REDIS_URL` is not connected to; it only lends its user, password and `rediss:` TLS to the nodes. BullMQ keys get one hash tag per queue (`{PREFIX:QUEUE}`) there; see [docs/redis-cluster.md](../redis-cluster.md). Errors name the bad entry',
  },
  {
    name: 'PORT',
    default: '3000',
    meaning: 'HTTP port of the API',
  },
  {
    name: 'PUBLIC_URL',
    defaultText: '`http://localhost:$PORT`',
    meaning: 'the address clients use; token issuer and audience, base of absolute URLs',
  },
  {
    name: 'SANDBOX_PUBLIC_URL',
    defaultText: '`{PUBLIC_URL}/sandbox`',
    meaning:
      "the sandbox base (its API at `…/v1` and `…/v2`, for test-mode credentials only). Unset, the sandbox is served under `/sandbox` on the live origin; set, an origin of its own (`https://sandbox.example.com`, no path, another hostname than `PUBLIC_URL`'s) that points at the same deployment, told apart by the request's `Host` (`X-Forwarded-Host` from `TRUSTED_PROXIES`) — see [The sandbox base URL](../authentication.md#the-sandbox-base-url)",
  },
  {
    name: 'BOOTSTRAP_CLIENT_ID',
    defaultText: '—',
    meaning:
      'with the secret: creates the operator organisation and a confidential client with every scope',
  },
  {
    name: 'BOOTSTRAP_CLIENT_SECRET',
    defaultText: '—',
    meaning: 'at least 16 characters; stored only as an scrypt hash',
  },
  {
    name: 'BOOTSTRAP_ADMIN_EMAIL',
    defaultText: '—',
    meaning:
      'with the password: a local account of the operator organisation that can sign in at `/oauth2/authorize` (created, or its password reset, at start)',
  },
  {
    name: 'BOOTSTRAP_ADMIN_PASSWORD',
    defaultText: '—',
    meaning: 'at least 12 characters; stored only as an argon2id hash',
  },
  {
    name: 'SIGNING_KEY_ROTATION_DAYS',
    default: '90',
    meaning:
      'the worker replaces the token-signing key at this age (published an hour before it signs; the old one verifies until its tokens expire); `0` turns rotation off',
  },
  {
    name: 'ACCESS_TOKEN_CACHE_ENTRIES',
    default: '10000',
    meaning:
      "access tokens each API process keeps verified in memory (by the token's SHA-256, until its `exp`), so a reused token skips the ES256 signature check; `0` turns the cache off. A revoked grant, a disabled person and a revoked API key are checked on every request all the same; a withdrawn signing key is refused on every instance as soon as it is announced",
  },
  {
    name: 'ACCESS_TOKEN_CACHE_MB',
    default: '16',
    meaning:
      'the most memory (estimated) that cache may hold, 1 to 1024; a token of 15 scopes takes about 1.5 KB, so the default entries fit in the default',
  },
  {
    name: 'SIGNING_KEY_SECRET',
    defaultText: '—',
    defaultNote:
      'required when `NODE_ENV=production`, as in the Docker image: the api and worker refuse to start without it',
    meaning:
      'at least 32 characters (`openssl rand -hex 32`); encrypts what the service must read back at rest (AES-256-GCM, one key per purpose): token-signing private keys, cookie keys, webhook signing secrets, stored idempotent responses. Unset outside production, they are stored unencrypted and a warning is logged; `npm start` makes one. Keep it: what was sealed with it cannot be read without it',
  },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    meaning: '`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`',
  },
  {
    name: 'SIMULATED_STEP_MS',
    default: '500',
    meaning:
      "time between the simulated engine's steps: a session's 10 % progress steps, an analysis's steps (3 for `quick_scan`, 5 `comprehensive`, 8 `deep_dive`)",
  },
  {
    name: 'ANALYST_CLOCK_SCALE',
    default: '1',
    meaning:
      'how much faster than the clock analyst deadlines run: a deadline is `duration_minutes` ÷ this after tasking (1 in production; tests and demonstrations raise it)',
  },
  {
    name: 'ANALYST_DEADLINE_SWEEP_MS',
    default: '10000',
    meaning:
      'how often the worker closes analyst work whose deadline has passed (completed with what was submitted, else failed `deadline_exceeded`)',
  },
  {
    name: 'WORKER_CONCURRENCY',
    default: '50',
    meaning: 'sessions one worker carries at once, and as many analyses besides',
  },
  {
    name: 'QUEUE_LOCK_DURATION_MS',
    default: '30000',
    meaning:
      "how long a running job's lock lasts unrenewed (its worker renews it every half of this); a killed worker's jobs go to another worker about this plus `QUEUE_STALLED_INTERVAL_MS` later ([docs/faults.md](../faults.md)). 5000–3600000: a worker too busy to renew in time has its job run twice",
  },
  {
    name: 'QUEUE_STALLED_INTERVAL_MS',
    default: '30000',
    meaning:
      "how often the worker looks for running jobs whose lock ran out and hands them to another worker (once per interval across all workers); 1000–3600000. Above the lock duration it only delays that: a live worker keeps its jobs' locks whatever the two",
  },
  {
    name: 'WORKER_HEALTH_PORT',
    defaultText: '—',
    meaning: 'when set, the worker serves `/health/live`, `/health/ready` and `/metrics` on it',
  },
  {
    name: 'BODY_LIMIT',
    default: '1mb',
    meaning: 'largest request body (`1048576`, `512kb`, `1mb`); larger → 413',
  },
  {
    name: 'DASHBOARD_DIR',
    default: 'dist/dashboard',
    meaning:
      'where the built dashboard is (`npm run build` writes it to `dist/dashboard`; relative paths from the working directory); served at `/dashboard`',
  },
  {
    name: 'HISTORY_IMPORT_MAX_BYTES',
    default: '64mb',
    meaning:
      'largest history import (`POST /v2/history/import`, streamed, not bound by `BODY_LIMIT`): bytes or a size (`512kb`, `64mb`), 1kb to 1024mb; larger → 413 and nothing is stored (at most 100,000 rows either way)',
  },
  {
    name: 'REPORT_RETENTION_DAYS',
    default: '7',
    meaning:
      "days a generated report is kept (1–365); expired reports answer 404 and the worker's `reports.sweep` deletes them every minute",
  },
  {
    name: 'SHUTDOWN_GRACE_MS',
    default: '10000',
    meaning:
      'how long a stopping process may finish in-flight requests and jobs; the API spends the first half (at most 5 s) draining: `/health/ready` fails while it still serves',
  },
  {
    name: 'TRUSTED_PROXIES',
    default: 'loopback',
    meaning:
      "addresses, CIDR ranges or `loopback`, `linklocal`, `uniquelocal`, comma-separated: the proxies (load balancers) whose `X-Forwarded-For`, `-Proto` and `-Host` are believed. The client's address from them counts sign-in attempts and token-endpoint limits, and the authorization server's URLs follow their scheme and host. Set it to the load balancer's addresses when it is not on the same host (e.g. `10.0.0.0/8`); trusting more lets any client choose its address",
  },
  {
    name: 'OUTBOUND_EXTRA_CA_FILE',
    defaultText: '—',
    meaning:
      "PEM file of CAs trusted, besides Node's bundled roots, for every outward HTTPS connection: webhook receivers and reference-material servers (on-premises servers, tests). Certificate verification is never off. The older name `WEBHOOK_EXTRA_CA_FILE` is still read when this is unset",
  },
  {
    name: 'OUTBOUND_PRIVATE_ALLOWLIST',
    defaultText: '—',
    meaning:
      'comma-separated host names, addresses or CIDR ranges the service may connect to although private (e.g. `127.0.0.1,10.20.0.0/16`), for webhooks, reference material, SAML metadata and LDAP directories alike (and the only hosts plain `ldap://` may reach); everything else must be a public address. The older name `WEBHOOK_PRIVATE_ALLOWLIST` is still read when this is unset',
  },
  {
    name: 'DNS_RESOLVERS',
    defaultText: "_(the system's resolver)_",
    meaning:
      'comma-separated `host:port` DNS servers that SSO domain verification asks for TXT records (e.g. `10.0.0.53:53`)',
  },
  {
    name: 'REFERENCE_MATERIAL_MAX_BYTES',
    default: '20mb',
    meaning:
      'largest photo or document of an analysis\'s reference material the worker fetches (`20971520`, `512kb`, `20mb`; 1kb to 256mb); a larger one becomes a failed item ("larger than N bytes")',
  },
  {
    name: 'REFERENCE_MATERIAL_TIMEOUT_MS',
    default: '30000',
    meaning:
      'time allowed for the whole fetch of one reference item: connecting, up to 3 redirects, headers and the complete body (100 to 600000)',
  },
  {
    name: 'WEBHOOK_RETRY_SCALE',
    default: '1',
    meaning: "multiplies every retry delay (and a receiver's `Retry-After`); tests use `0.001`",
  },
  {
    name: 'WEBHOOK_ENDPOINT_CONCURRENCY',
    default: '10',
    meaning: 'deliveries one endpoint may have in flight at once, across all workers',
  },
  {
    name: 'WEBHOOK_WORKER_CONCURRENCY',
    default: '100',
    meaning: 'deliveries one worker process sends at once',
  },
  {
    name: 'WEBHOOK_SOURCE_ADDRESSES',
    defaultText: "_(empty: the host's default address)_",
    meaning:
      "comma-separated local IP addresses of one family (e.g. `203.0.113.10,203.0.113.11`), checked at start: every webhook delivery's socket is bound to one of them, each endpoint's deliveries to each in turn. Published at `GET /v2/webhooks/source-addresses` for receivers to allow-list. The host must hold them (or route them to it). Empty: deliveries come from the host's default address",
  },
  {
    name: 'EVENT_RETENTION_DAYS',
    default: '30',
    meaning:
      'days events (with their deliveries and attempts) are kept; the worker deletes older ones hourly',
  },
  {
    name: 'AUDIT_RETENTION_DAYS',
    default: '365',
    meaning:
      'days audit events (`GET /v2/audit-events`) are kept, 1 to 3650; the worker deletes older ones hourly through `sweep_audit_events`',
  },
  {
    name: 'WS_HEARTBEAT_SECONDS',
    default: '30',
    meaning:
      "seconds between pings on the [live-update WebSocket](../live-updates.md) (1–3600); a connection that missed the previous ping is dropped, and each one's credential is checked again",
  },
  {
    name: 'WS_MAX_CONNECTIONS_PER_ORGANIZATION',
    default: '200',
    meaning:
      'live-update WebSockets one organisation may hold open per mode, across every API instance; one more is refused with 429 naming `ws_connections`',
  },
  {
    name: 'RATE_LIMITS',
    default: 'on',
    meaning:
      "`off` stops enforcing the plan and tier request limits (for measuring the limiter's cost; never in production)",
  },
  {
    name: 'RATE_LIMIT_ON_REDIS_FAILURE',
    default: 'allow',
    meaning:
      'what a request gets while Redis cannot count it: `allow` (served without limit headers; a warning is logged at most every 10 s) or `deny` (503 `SERVICE_UNAVAILABLE` with `Retry-After: 5`)',
  },
  {
    name: 'RATE_LIMIT_WINDOW_SCALE',
    default: '1',
    meaning: 'multiplies the minute, hour and day windows (at least 1 s each); tests use `0.05`',
  },
  {
    name: 'TOKEN_RATE_PER_CLIENT',
    default: '120',
    meaning:
      'requests a minute one client may send to the token, introspection and revocation endpoints, whatever their outcome',
  },
  {
    name: 'TOKEN_RATE_PER_ADDRESS',
    default: '600',
    meaning:
      'requests a minute one source address may send to those endpoints, whatever the client',
  },
  {
    name: 'SIGN_IN_RATE_PER_ADDRESS',
    default: '30',
    meaning: 'sign-in form submissions a minute from one source address',
  },
  {
    name: 'ANONYMOUS_RATE_PER_ADDRESS',
    default: '600',
    meaning:
      'requests a minute one source address may send without a valid credential (public endpoints, 401s, unknown routes); requests with one count against their organisation',
  },
];
