// Minimal reference implementation of GET /v1/sessions/{id}, POST /v1/sessions,
// POST /v1/analysis/targets, POST /v1/dowsing/query and GET /v1/history/{case_id}.
//
// It does the same work per request as the Nest service, with nothing around it:
//   request id (req_ TypeID, or a well-formed incoming X-Request-Id), Bearer parsing,
//   jose ES256 verification (typ at+jwt, iss, aud, exp, required claims) against the
//   public key(s) from `signing_keys` (cached in memory, like SigningKeyService) once per token
//   (the verified claims kept until exp, like VerifiedTokenCache; REFERENCE_TOKEN_CACHE=off: every request), or an
//   X-API-Key's format, checksum and hash looked up (cached in memory, like ApiKeyService),
//   the plan and tier request limits (rate-limiter-flexible's script per window), scope check,
//   then the statements the service issues (libs/sessions/src/session-rows.ts,
//   libs/events/src/event-log.ts): the 27-column SELECT for a read, and BEGIN / INSERT
//   sessions / INSERT events / concurrency check / COMMIT for a create (the events insert fires the outbox
//   pg_notify trigger). A submitted analysis (libs/analyses/src/analyses.service.ts) first gets its
//   estimate (analysis-estimates.ts: the queue's group-by every time, the measured figures cached
//   5 s), then BEGIN / INSERT analyses (33 columns) / INSERT events / concurrent-analyses check /
//   COMMIT. A dowsing query (libs/dowsing/src/dowsing.service.ts) reads the organisation's engine
//   seed and its verified record of the query type (the built lib's statement), is answered by the
//   built simulated engine (dist/libs/engines: the same computation the service does, not a
//   copy), then BEGIN / INSERT dowsing_queries (23 columns) / INSERT events
//   (dowsing.query_created) / INSERT dowsing_readings … unnest (located answers) / INSERT events
//   (dowsing.query_completed) / COMMIT. No response caching, no ETag.
//
// Plain node:http, pg Pool, ioredis, jose, typeid-js (and the built engine). No Nest, no ORM.
//
// Env: PORT, DATABASE_URL, REDIS_URL, REDIS_PREFIX, PUBLIC_URL, DATABASE_POOL_MAX, REFERENCE_TOKEN_CACHE,
//      SIMULATED_STEP_MS and WORKER_CONCURRENCY (estimates only; defaults 500 and 50 like the service).

import { createHash } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { Redis } from 'ioredis';
import { errors, importJWK, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import { TypeID, typeid } from 'typeid-js';
import { describeError } from './errors.mjs';

const env = process.env;
const PORT = Number(env.PORT ?? 0);
const PUBLIC_URL = (env.PUBLIC_URL ?? '').replace(/\/+$/, '');
const REDIS_PREFIX = env.REDIS_PREFIX ?? 'sas';
const POOL_MAX = Number(env.DATABASE_POOL_MAX ?? 10);
const STEP_MS = Number(env.SIMULATED_STEP_MS ?? 500);
const WORKER_CONCURRENCY = Number(env.WORKER_CONCURRENCY || 50);
const ESTIMATE_MS = STEP_MS * 10 + 2_000; // PROGRESS_STEPS * step + QUEUE_ALLOWANCE_MS, as in SessionsService
const TOKEN_TTL_S = 3600;
const BODY_LIMIT = 1024 * 1024;

if (!env.DATABASE_URL || !PUBLIC_URL) {
  process.stderr.write('reference-server: DATABASE_URL and PUBLIC_URL are required\n');
  process.exit(2);
}

const pool = new pg.Pool({
  connectionString: env.DATABASE_URL,
  max: POOL_MAX,
  application_name: 'sas-bench-reference',
});
pool.on('error', () => undefined);
const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
redis.on('error', () => undefined);

// ---------------------------------------------------------------- ids

/** Same rules as libs/common/src/ids.ts parsePublicId. */
function parsePublicId(prefix, value) {
  if (
    typeof value !== 'string' ||
    value.length !== prefix.length + 27 ||
    !value.startsWith(`${prefix}_`)
  )
    return null;
  try {
    return TypeID.fromString(value, prefix).toUUID();
  } catch {
    return null;
  }
}
const toPublicId = (prefix, uuid) => TypeID.fromUUID(prefix, uuid).toString();

// ---------------------------------------------------------------- signing keys (cached like SigningKeyService)

let publicKeys = new Map();
let keysLoadedAt = 0;

async function loadKeys() {
  const horizon = new Date(Date.now() - TOKEN_TTL_S * 1000);
  const { rows } = await pool.query(
    'SELECT kid, algorithm, public_jwk, retires_at FROM signing_keys ORDER BY created_at ASC',
  );
  const keys = new Map();
  for (const row of rows) {
    if (row.retires_at !== null && row.retires_at <= horizon) continue;
    keys.set(row.kid, await importJWK({ ...row.public_jwk, alg: row.algorithm }, row.algorithm));
  }
  publicKeys = keys;
  keysLoadedAt = Date.now();
}

async function publicKey(kid) {
  const known = publicKeys.get(kid);
  if (known) return known;
  if (Date.now() - keysLoadedAt < 5_000) return null;
  await loadKeys();
  return publicKeys.get(kid) ?? null;
}

// ---------------------------------------------------------------- errors

class HttpError extends Error {
  constructor(status, code, message, details = {}, headers = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}
const unauthorized = (issue) =>
  new HttpError(
    401,
    'UNAUTHORIZED',
    'Invalid or missing credentials',
    { issue },
    {
      'WWW-Authenticate': `Bearer error="invalid_token", error_description="${issue.replace(/"/g, "'")}"`,
    },
  );
const invalid = (field, issue) =>
  new HttpError(400, 'INVALID_REQUEST', `Invalid value for ${field}: ${issue}`, { field, issue });

function tokenError(error) {
  if (error instanceof errors.JWTExpired) return 'access token expired';
  if (error instanceof errors.JWTClaimValidationFailed)
    return `access token claim ${error.claim} is invalid`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'access token algorithm not allowed';
  if (error instanceof errors.JWKSNoMatchingKey) return 'access token signed by an unknown key';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'access token signature is invalid';
  return 'malformed access token';
}

// ---------------------------------------------------------------- auth + usage

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const getKey = async (header) => {
  const key = header.kid ? await publicKey(header.kid) : null;
  if (!key) throw new errors.JWKSNoMatchingKey();
  return key;
};
const VERIFY_OPTIONS = {
  algorithms: ['ES256'],
  typ: 'at+jwt',
  issuer: PUBLIC_URL,
  audience: PUBLIC_URL,
  requiredClaims: ['exp', 'iat', 'sub', 'org_id', 'mode', 'scope'],
};

async function authenticate(request, response, scope) {
  const credential =
    request.headers['x-api-key'] === undefined
      ? await tokenPrincipal(request.headers.authorization)
      : await keyPrincipal(request.headers['x-api-key']);
  // Looked up once per request, here: the concurrency check of a create uses the same limits
  // rather than looking them up again inside its transaction, where a cache miss would wait for a
  // second connection from the pool while holding one (with every connection held that way, the
  // pool deadlocks). A request's own object: the credential's may be shared (cached).
  const principal = { ...credential, limits: await limitsOf(credential.organizationId) };
  await countRequest(principal, response);
  if (!principal.scopes.includes(scope)) {
    throw new HttpError(403, 'FORBIDDEN', 'Insufficient permissions', { missing_scopes: [scope] });
  }
  return principal;
}

async function tokenPrincipal(header) {
  if (header === undefined || header.trim() === '')
    throw unauthorized('no credential: send Authorization: Bearer <token>');
  const match = BEARER.exec(header);
  if (!match) throw unauthorized('the Authorization header must be "Bearer <credential>"');
  const token = match[1];
  if (verifiedTokens === null) return (await verifyToken(token)).principal;
  const cacheKey = createHash('sha256').update(token).digest('base64url');
  const cached = verifiedTokens.get(cacheKey);
  if (cached !== undefined && cached.expiresAt > Date.now() && publicKeys.has(cached.kid))
    return cached.principal;
  const verified = await verifyToken(token);
  verifiedTokens.set(cacheKey, verified, { ttl: verified.expiresAt - Date.now() });
  return verified.principal;
}

// As VerifiedTokenCache (libs/auth): the claims a token's signature proved, by the token's
// SHA-256, until its exp and while its key is still loaded, in the same LRU with the same bounds
// and size estimate. REFERENCE_TOKEN_CACHE=off verifies every request, as the service does with
// ACCESS_TOKEN_CACHE_ENTRIES=0.
const verifiedTokens =
  env.REFERENCE_TOKEN_CACHE === 'off'
    ? null
    : new LRUCache({
        max: 10_000,
        maxSize: 16 * 1024 * 1024,
        sizeCalculation: (entry, key) =>
          700 +
          key.length +
          entry.kid.length +
          entry.principal.organizationId.length +
          entry.principal.scopes.reduce((bytes, scope) => bytes + 40 + scope.length, 0),
      });

async function verifyToken(token) {
  let payload;
  let kid;
  try {
    ({ payload } = await jwtVerify(
      token,
      async (header) => {
        const key = await getKey(header);
        kid = header.kid;
        return key;
      },
      VERIFY_OPTIONS,
    ));
  } catch (error) {
    throw unauthorized(tokenError(error));
  }
  const organizationId =
    typeof payload.org_id === 'string' ? parsePublicId('org', payload.org_id) : null;
  const mode = payload.mode;
  if (
    organizationId === null ||
    (mode !== 'live' && mode !== 'test') ||
    typeof payload.scope !== 'string'
  ) {
    throw unauthorized('access token has malformed claims');
  }
  return {
    principal: Object.freeze({
      organizationId,
      mode,
      scopes: Object.freeze(payload.scope.split(' ').filter(Boolean)),
    }),
    kid,
    expiresAt: payload.exp * 1000,
  };
}

// As ApiKeyService#authenticate (libs/api-keys): the key's format and checksum (the built
// functions), its SHA-256 looked up once and then kept in memory, revoked and expired refused.
// (The service also records the key's last use, at most once a minute: left out.)
const apiKeyFormat = await import(
  new URL('../dist/libs/api-keys/src/api-key-format.js', import.meta.url).href
);
const apiKeys = new Map();

async function keyPrincipal(key) {
  if (!apiKeyFormat.parseApiKey(key)) throw unauthorized('malformed API key');
  const hash = apiKeyFormat.hashApiKey(key);
  const cacheKey = hash.toString('hex');
  let record = apiKeys.get(cacheKey);
  if (!record) {
    [record] = (
      await pool.query(
        `SELECT organization_id, mode, scopes, expires_at, revoked_at FROM api_keys
          WHERE secret_hash = $1`,
        [hash],
      )
    ).rows;
    if (record) apiKeys.set(cacheKey, record);
  }
  if (!record || record.revoked_at !== null) throw unauthorized('unknown or revoked API key');
  if (record.expires_at !== null && record.expires_at.getTime() <= Date.now())
    throw unauthorized('API key expired');
  return { organizationId: record.organization_id, mode: record.mode, scopes: record.scopes };
}

// ---------------------------------------------------------------- request limits

// As apps/api/src/http/request-limiter.ts with rate-limiter-flexible's RateLimiterRedis: the
// organisation's limits from memory (5 s), the library's own script per window (minute, then the
// quotas the tier has), and the same five headers. Redis errors let the request through.
const INCR_TTL = `redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl}`;
redis.defineCommand('rlflxIncr', { numberOfKeys: 1, lua: INCR_TTL });
const PLAN_RPM = { free: 60, pro: 600, enterprise: 6000 };
const CONCURRENT_SESSIONS = { free: 5, pro: 50, enterprise: 500 };
const TIER_QUOTAS = {
  basic: [100, 1000],
  professional: [500, 5000],
  enterprise: [2000, 20000],
  custom: [null, null],
};
const limitsCache = new Map();

/** The organisation's windows and concurrent sessions, from memory for 5 s (OrganizationLimitsCache). */
async function limitsOf(organizationId) {
  const cached = limitsCache.get(organizationId);
  if (cached && Date.now() - cached.at < 5000) return cached;
  const {
    rows: [row],
  } = await pool.query(
    `SELECT plan, tier, requests_per_minute, requests_per_hour, requests_per_day, max_concurrent_sessions
       FROM organizations WHERE id = $1`,
    [organizationId],
  );
  const [hour, day] = TIER_QUOTAS[row.tier];
  const limits = {
    windows: [
      ['minute', 60, row.requests_per_minute ?? PLAN_RPM[row.plan]],
      ['hour', 3600, row.requests_per_hour ?? hour],
      ['day', 86400, row.requests_per_day ?? day],
    ].filter(([, , limit]) => limit !== null),
    concurrentSessions: row.max_concurrent_sessions ?? CONCURRENT_SESSIONS[row.plan],
    at: Date.now(),
  };
  limitsCache.set(organizationId, limits);
  return limits;
}

async function countRequest(principal, response) {
  const limits = principal.limits.windows;
  const key = `${principal.organizationId}:${principal.mode}`;
  const count = async ([name, seconds, limit]) => {
    const [used, ttl] = await redis.rlflxIncr(`${REDIS_PREFIX}:rate:${name}:${key}`, 1, seconds);
    return {
      name,
      seconds,
      limit,
      used,
      remaining: Math.max(0, limit - used),
      reset: Math.max(1, Math.ceil(ttl / 1000)),
    };
  };
  let windows;
  try {
    const minute = await count(limits[0]);
    windows =
      minute.used > minute.limit
        ? [minute]
        : [minute, ...(await Promise.all(limits.slice(1).map(count)))];
  } catch {
    return; // a Redis outage lets requests through
  }
  const exceeded = windows.find((w) => w.used > w.limit);
  const closest =
    exceeded ?? windows.reduce((a, b) => (b.remaining / b.limit < a.remaining / a.limit ? b : a));
  const headers = {
    'X-RateLimit-Limit': String(closest.limit),
    'X-RateLimit-Remaining': String(closest.remaining),
    'X-RateLimit-Reset': String(Math.floor(Date.now() / 1000) + closest.reset),
    'RateLimit-Policy': windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', '),
    RateLimit: `"${closest.name}";r=${closest.remaining};t=${closest.reset}`,
  };
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  if (exceeded)
    throw new HttpError(429, 'RATE_LIMITED', 'Too many requests', {
      field: `requests_per_${exceeded.name}`,
    });
}

// ---------------------------------------------------------------- sessions

const SELECT_SESSION = `SELECT "id", "organization_id", "mode", "type", "target", "modality", "duration_minutes",
  "privacy_level", "status", "progress", "engine", "engine_version", "engine_seed", "results", "confidence_score",
  "analyst_id", "evidence", "failure_reason", "event_sequence", "created_at", "updated_at", "started_at",
  "completed_at", "estimated_completion", "batch_id", "analyst_count", "merged_from"
  FROM "sessions" WHERE "id" = $1 AND "organization_id" = $2 AND "mode" = $3`;

const INSERT_SESSION = `INSERT INTO "sessions"("id", "organization_id", "mode", "type", "target", "modality",
  "duration_minutes", "privacy_level", "status", "progress", "engine", "engine_version", "engine_seed", "results",
  "confidence_score", "analyst_id", "evidence", "failure_reason", "event_sequence", "created_at", "updated_at",
  "started_at", "completed_at", "estimated_completion", "batch_id", "analyst_count", "merged_from")
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  $12, $13, $14, NULL, NULL, $15, NULL, 1, NULL)`;

const INSERT_EVENT = `INSERT INTO "events"("id", "organization_id", "mode", "type", "data", "request_id")
  VALUES ($1, $2, $3, $4, $5, $6)`;

function phaseOf(status, progress) {
  switch (status) {
    case 'initiated':
      return 'queued';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    default:
      if (progress < 60) return 'data_collection';
      return progress < 90 ? 'analysis' : 'validation';
  }
}

async function readSession(principal, publicId) {
  const uuid = parsePublicId('sess', publicId);
  const row =
    uuid === null
      ? undefined
      : (await pool.query(SELECT_SESSION, [uuid, principal.organizationId, principal.mode]))
          .rows[0];
  if (!row)
    throw new HttpError(404, 'NOT_FOUND', `No session with id ${publicId}`, {
      field: 'id',
      issue: 'not found',
    });
  return {
    session_id: toPublicId('sess', row.id),
    type: row.type,
    // SessionV1Mapper's disclosedTarget: a classified session's target never leaves the table.
    target: row.privacy_level === 'classified' ? null : row.target,
    status: row.status,
    progress: row.progress,
    current_phase: phaseOf(row.status, row.progress),
    results_available: row.status === 'completed' && row.results !== null,
    created_at: row.created_at.toISOString(),
    estimated_completion: row.estimated_completion?.toISOString() ?? null,
    ...(row.failure_reason !== null ? { failure_reason: row.failure_reason } : {}),
  };
}

const SESSION_TYPES = ['remote_viewing', 'dowsing', 'automatic_writing'];
const MODALITIES = ['visual', 'kinesthetic', 'auditory'];
const PRIVACY_LEVELS = ['public', 'private', 'classified'];
const ALLOWED_FIELDS = new Set([
  'type',
  'session_type',
  'target',
  'cue',
  'modality',
  'duration_minutes',
  'privacy_level',
]);

/** The same rules as CreateSessionV1Dto + toNewSession (first problem reported). */
function validateCreate(body) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body', 'must be a JSON object');
  for (const field of Object.keys(body))
    if (!ALLOWED_FIELDS.has(field)) throw invalid(field, 'is not a recognised field');
  const oneOf = (field, values) => {
    if (body[field] !== undefined && !values.includes(body[field]))
      throw invalid(field, `must be one of ${values.join(', ')}`);
  };
  const text = (field) => {
    const value = body[field];
    if (value === undefined) return;
    if (typeof value !== 'string') throw invalid(field, 'must be a string');
    if (value.length < 1 || value.length > 1000)
      throw invalid(field, 'must be 1 to 1000 characters');
  };
  oneOf('type', SESSION_TYPES);
  oneOf('session_type', SESSION_TYPES);
  text('target');
  text('cue');
  oneOf('modality', MODALITIES);
  const duration = body.duration_minutes;
  if (duration !== undefined && (!Number.isInteger(duration) || duration < 5 || duration > 180)) {
    throw invalid('duration_minutes', 'must be an integer between 5 and 180');
  }
  oneOf('privacy_level', PRIVACY_LEVELS);
  if (body.target !== undefined && body.cue !== undefined)
    throw invalid('cue', 'send either target or cue, not both');
  if (
    body.type !== undefined &&
    body.session_type !== undefined &&
    body.type !== body.session_type
  ) {
    throw invalid('session_type', 'send either type or session_type, not both');
  }
  const target = body.target ?? body.cue;
  if (target === undefined || target.trim() === '')
    throw invalid('target', target === undefined ? 'is required' : 'must not be blank');
  const type = body.type ?? body.session_type;
  if (type === undefined) throw invalid('type', 'is required');
  return {
    type,
    target,
    modality: body.modality ?? null,
    durationMinutes: body.duration_minutes ?? 30,
    privacyLevel: body.privacy_level ?? 'private',
  };
}

async function createSession(principal, input, requestId) {
  const id = typeid('sess');
  const uuid = id.toUUID();
  const sessionId = id.toString();
  const now = new Date();
  const estimated = new Date(now.getTime() + ESTIMATE_MS);
  const data = {
    session_id: sessionId,
    type: input.type,
    status: 'initiated',
    created_at: now.toISOString(),
    estimated_completion: estimated.toISOString(),
    sequence: 1,
  };
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(INSERT_SESSION, [
      uuid,
      principal.organizationId,
      principal.mode,
      input.type,
      input.target,
      input.modality,
      input.durationMinutes,
      input.privacyLevel,
      'initiated',
      0,
      'simulated',
      1,
      now,
      now,
      estimated,
    ]);
    await client.query(INSERT_EVENT, [
      typeid('evt').toUUID(),
      principal.organizationId,
      principal.mode,
      'session.created',
      JSON.stringify(data),
      requestId,
    ]);
    await assertConcurrentWorkWithin(client, principal, CONCURRENT_SESSIONS_WORK);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return {
    session_id: sessionId,
    status: 'initiated',
    created_at: data.created_at,
    estimated_completion: data.estimated_completion,
  };
}

/** The two pools of concurrent work (libs/organizations/src/concurrent-work-limit.ts), each on its own. */
const CONCURRENT_SESSIONS_WORK = { table: 'sessions', running: ['initiated', 'in_progress'] };
const CONCURRENT_ANALYSES_WORK = { table: 'analyses', running: ['queued', 'processing'] };

/**
 * The plan's concurrent work of one kind, checked after the inserts as the service does
 * (assertConcurrentWorkWithin), with the limits the request already looked up (no query outside
 * the transaction's connection). `work.table` is one of the two constants above, never input.
 */
async function assertConcurrentWorkWithin(client, principal, work) {
  const limit = principal.limits.concurrentSessions;
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `${work.table}:${principal.organizationId}:${principal.mode}`,
  ]);
  const {
    rows: [{ running }],
  } = await client.query(
    `SELECT count(*)::int AS running FROM (
         SELECT 1 FROM ${work.table} WHERE organization_id = $1 AND mode = $2
            AND status = ANY($3) LIMIT $4) AS running`,
    [principal.organizationId, principal.mode, work.running, limit + 1],
  );
  if (running > limit) throw new Error(`over the plan's ${limit} concurrent ${work.table}`);
}

// ---------------------------------------------------------------- analyses

const ANALYSIS_TARGET_TYPES = ['location', 'person', 'object', 'event'];
const ANALYSIS_TYPES = ['comprehensive', 'quick_scan', 'deep_dive'];
const ANALYSIS_PRIORITIES = ['low', 'medium', 'high', 'urgent'];
/** Steps of each analysis type's plan (SimulatedAnalysisEngine's PLANS). */
const ANALYSIS_STEPS = { quick_scan: 3, comprehensive: 5, deep_dive: 8 };
/** BullMQ priority of each analysis priority (QUEUE_PRIORITY): lower runs first. */
const QUEUE_PRIORITY = { urgent: 1, high: 2, medium: 3, low: 4 };
const MAX_REFERENCE_ITEMS = 20; // MAX_PHOTOS, MAX_DOCUMENTS
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 1000;

/** Canonical JSON (libs/common/src/canonical-json.ts): keys sorted, undefined members dropped. */
function canonicalJson(value) {
  if (value === null || typeof value === 'boolean' || typeof value === 'string')
    return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`canonical JSON cannot encode ${value}`);
    return JSON.stringify(value);
  }
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const members = Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
  return `{${members.join(',')}}`;
}

/** Lower-cased, whitespace collapsed (analysis-request.ts descriptionKey). */
function descriptionKey(description) {
  if (description === null) return null;
  const key = description.trim().replace(/\s+/g, ' ').toLowerCase();
  return key === '' ? null : key;
}

/** Hex SHA-256 of the canonical request, priority aside (analysis-request.ts requestFingerprint). */
function requestFingerprint(input) {
  const { photos, documents, coordinates } = input.referenceMaterial;
  return createHash('sha256')
    .update(
      canonicalJson({
        targetType: input.targetType,
        analysisType: input.analysisType,
        description: descriptionKey(input.description),
        photos: [...photos],
        documents: [...documents],
        coordinates: coordinates && {
          latitude: coordinates.latitude,
          longitude: coordinates.longitude,
        },
      }),
    )
    .digest('hex');
}

const isPlainObject = (value) =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
function onlyFields(object, allowed, at) {
  for (const field of Object.keys(object))
    if (!allowed.has(field)) throw invalid(`${at}${field}`, 'is not a recognised field');
}
const SUBMIT_FIELDS = new Set([
  'target_type',
  'reference_material',
  'analysis_type',
  'priority',
  'description',
]);
const MATERIAL_FIELDS = new Set(['photos', 'documents', 'coordinates']);
const COORDINATE_FIELDS = new Set(['latitude', 'longitude']);

/** A coordinate as TargetCoordinatesDto checks it: a finite number within ±bound. */
function coordinate(value, field, bound) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < -bound || value > bound)
    throw invalid(field, `must be a number between -${bound} and ${bound}`);
  return value;
}

/** An absolute https URL without credentials or fragment (analysis.mapper.ts referenceUrl). */
function referenceUrl(value, field) {
  if (typeof value !== 'string') throw invalid(field, 'must be an https URL string');
  if (value.length > MAX_URL_LENGTH)
    throw invalid(field, `must be at most ${MAX_URL_LENGTH} characters`);
  let url;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, 'must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:') throw invalid(field, 'must use https://');
  if (url.username || url.password)
    throw invalid(field, 'must not contain credentials (they would be stored with the analysis)');
  if (url.hash) throw invalid(field, 'must not contain a fragment');
  return value;
}

/**
 * The rules of SubmitAnalysisDto (with ReferenceMaterialDto and TargetCoordinatesDto: unknown
 * fields refused at every level, `null` refused where a field is merely optional) and then of
 * toNewAnalysis (defaults, each reference URL checked, a blank description refused).
 */
function validateSubmit(body) {
  if (!isPlainObject(body)) throw invalid('body', 'must be a JSON object');
  onlyFields(body, SUBMIT_FIELDS, '');
  const oneOf = (field, values) => {
    if (body[field] !== undefined && !values.includes(body[field]))
      throw invalid(field, `must be one of ${values.join(', ')}`);
  };
  if (!ANALYSIS_TARGET_TYPES.includes(body.target_type))
    throw invalid('target_type', `must be one of ${ANALYSIS_TARGET_TYPES.join(', ')}`);
  const material = body.reference_material;
  let photos = [];
  let documents = [];
  let coordinates = null;
  if (material !== undefined) {
    if (!isPlainObject(material))
      throw invalid(
        'reference_material',
        'must be an object with photos, documents and coordinates',
      );
    onlyFields(material, MATERIAL_FIELDS, 'reference_material.');
    for (const kind of ['photos', 'documents']) {
      const list = material[kind];
      if (list === undefined) continue;
      if (!Array.isArray(list))
        throw invalid(`reference_material.${kind}`, 'must be an array of https URLs');
      if (list.length > MAX_REFERENCE_ITEMS)
        throw invalid(
          `reference_material.${kind}`,
          `can hold at most ${MAX_REFERENCE_ITEMS} ${kind}`,
        );
    }
    const at = material.coordinates;
    if (at !== undefined && at !== null) {
      if (!isPlainObject(at))
        throw invalid(
          'reference_material.coordinates',
          'must be an object with latitude and longitude',
        );
      onlyFields(at, COORDINATE_FIELDS, 'reference_material.coordinates.');
      coordinates = {
        latitude: coordinate(at.latitude, 'reference_material.coordinates.latitude', 90),
        longitude: coordinate(at.longitude, 'reference_material.coordinates.longitude', 180),
      };
    }
  }
  oneOf('analysis_type', ANALYSIS_TYPES);
  oneOf('priority', ANALYSIS_PRIORITIES);
  const description = body.description;
  if (description !== undefined) {
    if (typeof description !== 'string') throw invalid('description', 'must be a string');
    if (description.length < 1 || description.length > MAX_DESCRIPTION_LENGTH)
      throw invalid('description', `must be 1 to ${MAX_DESCRIPTION_LENGTH} characters`);
    if (description.trim() === '') throw invalid('description', 'must not be blank');
  }
  if (material !== undefined) {
    photos = (material.photos ?? []).map((url, i) =>
      referenceUrl(url, `reference_material.photos.${i}`),
    );
    documents = (material.documents ?? []).map((url, i) =>
      referenceUrl(url, `reference_material.documents.${i}`),
    );
  }
  return {
    targetType: body.target_type,
    analysisType: body.analysis_type ?? 'comprehensive',
    priority: body.priority ?? 'medium',
    description: description ?? null,
    referenceMaterial: { photos, documents, coordinates },
  };
}

// The estimate (AnalysisEstimates): the work ahead from the queue, every time; the measured rate
// and mean duration per type from recent completions, re-read at most every 5 s.
const MEASURE_EVERY_MS = 5_000;
const MEASURE_WINDOW_MS = 15 * 60_000;
const MIN_MEASURED = 3;
const BASE_ALLOWANCE_MS = 2_000;
const PER_ITEM_ALLOWANCE_MS = 1_000;
let measured = null;

async function measure(now) {
  if (measured && now.getTime() - measured.at < MEASURE_EVERY_MS) return measured;
  const { rows } = await pool.query(
    `SELECT analysis_type, count(*)::int AS completed, min(completed_at) AS first_at,
            avg(extract(epoch FROM completed_at - started_at) * 1000)::float8 AS mean_ms
       FROM analyses WHERE status = 'completed' AND completed_at > $1
      GROUP BY analysis_type`,
    [new Date(now.getTime() - MEASURE_WINDOW_MS)],
  );
  const completed = rows.reduce((sum, row) => sum + row.completed, 0);
  const firstAt = Math.min(...rows.map((row) => row.first_at.getTime()));
  const spanMs = Math.max(60_000, now.getTime() - firstAt);
  measured = {
    at: now.getTime(),
    ratePerMs: completed >= MIN_MEASURED ? completed / spanMs : null,
    meanDurationMs: new Map(
      rows.filter((row) => row.completed >= MIN_MEASURED).map((r) => [r.analysis_type, r.mean_ms]),
    ),
  };
  return measured;
}

async function queueAhead() {
  const { rows } = await pool.query(
    `SELECT priority, status, count(*)::int AS count FROM analyses
      WHERE status IN ('queued', 'processing') GROUP BY priority, status`,
    [],
  );
  const queued = new Map();
  let processing = 0;
  for (const row of rows) {
    if (row.status === 'queued') queued.set(row.priority, row.count);
    else processing += row.count;
  }
  return { queued, processing };
}

async function estimate(input, now) {
  const [figures, queue] = await Promise.all([measure(now), queueAhead()]);
  const ahead =
    ANALYSIS_PRIORITIES.filter((p) => QUEUE_PRIORITY[p] <= QUEUE_PRIORITY[input.priority]).reduce(
      (sum, p) => sum + (queue.queued.get(p) ?? 0),
      0,
    ) + queue.processing;
  const materialCount =
    input.referenceMaterial.photos.length + input.referenceMaterial.documents.length;
  const ownMs =
    figures.meanDurationMs.get(input.analysisType) ??
    ANALYSIS_STEPS[input.analysisType] * STEP_MS +
      BASE_ALLOWANCE_MS +
      materialCount * PER_ITEM_ALLOWANCE_MS;
  const waiting = Math.max(0, ahead - WORKER_CONCURRENCY + 1);
  const waitMs =
    waiting === 0
      ? 0
      : figures.ratePerMs !== null
        ? waiting / figures.ratePerMs
        : Math.ceil(waiting / WORKER_CONCURRENCY) * ownMs;
  return new Date(now.getTime() + waitMs + ownMs);
}

const ANALYSIS_COLUMNS = [
  'id',
  'organization_id',
  'mode',
  'target_type',
  'analysis_type',
  'priority',
  'description',
  'description_key',
  'reference_material',
  'latitude',
  'longitude',
  'request_fingerprint',
  'material',
  'earlier_work',
  'status',
  'steps_done',
  'steps',
  'engine',
  'engine_version',
  'engine_seed',
  'results',
  'score_details',
  'confidence_score',
  'evidence',
  'failure_reason',
  'failure_message',
  'event_sequence',
  'created_at',
  'updated_at',
  'started_at',
  'completed_at',
  'estimated_completion',
  'batch_id',
];
const INSERT_ANALYSIS = `INSERT INTO analyses (${ANALYSIS_COLUMNS.join(', ')})
  VALUES (${ANALYSIS_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

/** AnalysesService.create: the estimate, then the row, its event and the concurrency check in one transaction. */
async function submitAnalysis(principal, input, requestId) {
  const estimated = await estimate(input, new Date());
  const id = typeid('anal');
  const uuid = id.toUUID();
  const analysisId = id.toString();
  const now = new Date();
  const coordinates = input.referenceMaterial.coordinates;
  const row = {
    id: uuid,
    organization_id: principal.organizationId,
    mode: principal.mode,
    target_type: input.targetType,
    analysis_type: input.analysisType,
    priority: input.priority,
    description: input.description,
    description_key: descriptionKey(input.description),
    reference_material: JSON.stringify(input.referenceMaterial),
    latitude: coordinates?.latitude ?? null,
    longitude: coordinates?.longitude ?? null,
    request_fingerprint: requestFingerprint(input),
    material: null,
    earlier_work: null,
    status: 'queued',
    steps_done: 0,
    steps: null,
    engine: 'simulated',
    engine_version: null,
    engine_seed: null,
    results: null,
    score_details: null,
    confidence_score: null,
    evidence: null,
    failure_reason: null,
    failure_message: null,
    event_sequence: 1,
    created_at: now,
    updated_at: now,
    started_at: null,
    completed_at: null,
    estimated_completion: estimated,
    batch_id: null,
  };
  const data = {
    analysis_id: analysisId,
    target_type: input.targetType,
    status: 'queued',
    sequence: 1,
    analysis_type: input.analysisType,
    priority: input.priority,
    created_at: now.toISOString(),
    estimated_completion: estimated.toISOString(),
  };
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      INSERT_ANALYSIS,
      ANALYSIS_COLUMNS.map((column) => row[column]),
    );
    await client.query(INSERT_EVENT, [
      typeid('evt').toUUID(),
      principal.organizationId,
      principal.mode,
      'analysis.created',
      JSON.stringify(data),
      requestId,
    ]);
    await assertConcurrentWorkWithin(client, principal, CONCURRENT_ANALYSES_WORK);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return {
    analysis_id: analysisId,
    status: 'queued',
    estimated_completion: data.estimated_completion,
    priority: input.priority,
    created_at: data.created_at,
  };
}

// ---------------------------------------------------------------- dowsing

// The engine's computation is part of the work both servers do, so the reference runs the same
// built engine (a pure function of the request and the organisation's seed) rather than a copy.
const engines = await import(new URL('../dist/libs/engines/src/index.js', import.meta.url).href);
const dowsingEngine = new engines.SimulatedDowsingEngine();
// The organisation's verified record of the query type: the service's own code (VerifiedRecords
// over HistoryCasesRepository, libs/history), imported from the build like the engine and run on
// this server's pool.
const { HistoryCasesRepository } = await import(
  new URL('../dist/libs/history/src/history-cases.repository.js', import.meta.url).href
);
const { VerifiedRecords } = await import(
  new URL('../dist/libs/history/src/verified-record.js', import.meta.url).href
);
const verifiedRecords = new VerifiedRecords(
  new HistoryCasesRepository({
    query: (text, parameters) => pool.query(text, parameters),
    rows: async (text, parameters) => (await pool.query(text, parameters)).rows,
  }),
);
// The answered query's history case: the service's own mapping and statement (libs/history's
// dowsingQueryCase and WorkCasesRepository), run on the transaction's client.
const { WorkCasesRepository } = await import(
  new URL('../dist/libs/history/src/cases/work-cases.repository.js', import.meta.url).href
);
const { dowsingQueryCase } = await import(
  new URL('../dist/libs/history/src/cases/work-case.js', import.meta.url).href
);
const workCases = new WorkCasesRepository();
const { DOWSING_QUERY_TYPES, PRECISION_LEVELS, TIMEFRAMES, dowsingRequestProblem } = engines;
const MAX_QUESTION_LENGTH = 1000;
const MIN_RADIUS_METERS = 1;
const MAX_RADIUS_METERS = 100_000;
const MAX_PARAMETER_KEYS = 50;
const MAX_PARAMETERS_BYTES = 8 * 1024;
const DOWSING_FIELDS = new Set(['query_type', 'question', 'context', 'precision_level']);
const CONTEXT_FIELDS = new Set(['location', 'timeframe', 'parameters']);
const CIRCLE_FIELDS = new Set(['latitude', 'longitude', 'radius_meters']);

/**
 * The rules of DowsingQueryDto (with DowsingContextDto and SearchCircleDto: unknown fields
 * refused at every level, `null` refused where a field is merely optional), then of
 * queryRequest in dowsing-request.mapper.ts (the parameters' bounds, the search circle a
 * location query needs, a blank question refused) and the engine's own dowsingRequestProblem.
 */
function validateDowsingQuery(body) {
  if (!isPlainObject(body)) throw invalid('body', 'must be a JSON object');
  onlyFields(body, DOWSING_FIELDS, '');
  if (!DOWSING_QUERY_TYPES.includes(body.query_type))
    throw invalid('query_type', `must be one of ${DOWSING_QUERY_TYPES.join(', ')}`);
  const text = body.question;
  if (typeof text !== 'string') throw invalid('question', 'must be a string');
  if (text.length < 1 || text.length > MAX_QUESTION_LENGTH)
    throw invalid('question', `must be 1 to ${MAX_QUESTION_LENGTH} characters`);
  if (body.precision_level !== undefined && !PRECISION_LEVELS.includes(body.precision_level))
    throw invalid('precision_level', `must be one of ${PRECISION_LEVELS.join(', ')}`);
  const context = {};
  if (body.context !== undefined) {
    const given = body.context;
    if (!isPlainObject(given)) throw invalid('context', 'must be an object');
    onlyFields(given, CONTEXT_FIELDS, 'context.');
    const { location, timeframe, parameters } = given;
    if (location !== undefined) {
      if (!isPlainObject(location))
        throw invalid(
          'context.location',
          'must be an object with latitude, longitude and radius_meters',
        );
      onlyFields(location, CIRCLE_FIELDS, 'context.location.');
      const radius = location.radius_meters;
      context.location = {
        latitude: coordinate(location.latitude, 'context.location.latitude', 90),
        longitude: coordinate(location.longitude, 'context.location.longitude', 180),
        radius_meters: radius,
      };
      if (
        typeof radius !== 'number' ||
        !Number.isFinite(radius) ||
        radius < MIN_RADIUS_METERS ||
        radius > MAX_RADIUS_METERS
      )
        throw invalid(
          'context.location.radius_meters',
          `must be a number of meters between ${MIN_RADIUS_METERS} and ${MAX_RADIUS_METERS}`,
        );
    }
    if (timeframe !== undefined) {
      if (!TIMEFRAMES.includes(timeframe))
        throw invalid('context.timeframe', `must be one of ${TIMEFRAMES.join(', ')}`);
      context.timeframe = timeframe;
    }
    if (parameters !== undefined) {
      if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
        throw invalid('context.parameters', 'must be an object');
      if (Object.keys(parameters).length > MAX_PARAMETER_KEYS)
        throw invalid('context.parameters', `can hold at most ${MAX_PARAMETER_KEYS} keys`);
      if (Buffer.byteLength(JSON.stringify(parameters)) > MAX_PARAMETERS_BYTES)
        throw invalid(
          'context.parameters',
          `must be at most ${MAX_PARAMETERS_BYTES / 1024} KiB as JSON`,
        );
      const options = parameters.options;
      if (
        options !== undefined &&
        (!Array.isArray(options) ||
          options.length < 2 ||
          options.length > 100 ||
          options.some((o) => typeof o !== 'string' || o.length < 1 || o.length > 200))
      )
        throw invalid(
          'context.parameters.options',
          'must be an array of 2 to 100 distinct strings of 1 to 200 characters',
        );
      context.parameters = parameters;
    }
  }
  if (body.query_type === 'location' && !context.location)
    throw invalid('context.location', 'is required for a location query');
  if (text.trim() === '') throw invalid('question', 'must not be blank');
  const request = {
    queryType: body.query_type,
    question: text,
    precisionLevel: body.precision_level ?? 'standard',
    context,
    input: { variant: 'query' },
  };
  const problem = dowsingRequestProblem(request);
  if (problem !== null) {
    const match = /^([\w.[\]]+?)(?::\s*|\s+)(.*)$/.exec(problem);
    const field = (match?.[1] ?? 'body').replace(/\[(\d*)\]/g, (_, i) => (i ? `.${i}` : ''));
    throw invalid(field, match?.[2] ?? problem);
  }
  return request;
}

/** OrganizationsService.engineSeed: read on every query, as the service's findOne does. */
async function engineSeed(organizationId) {
  const { rows } = await pool.query(
    'SELECT id, engine_seed FROM organizations WHERE id = $1 LIMIT 1',
    [organizationId],
  );
  if (!rows[0]) throw new Error(`organisation ${organizationId} does not exist`);
  return rows[0].engine_seed;
}

/** VerifiedRecords.of for a dowsing query type: one indexed statement over history_cases. */
async function verifiedRecord(principal, queryType) {
  return verifiedRecords.of(principal, {
    type: 'dowsing',
    subtypes: [queryType],
    defaultP0: engines.DOWSING_DEFAULT_BASELINE[queryType],
  });
}

const DOWSING_COLUMNS = [
  'id',
  'organization_id',
  'mode',
  'variant',
  'query_type',
  'question',
  'precision_level',
  'context',
  'input',
  'status',
  'engine',
  'engine_version',
  'engine_seed',
  'result',
  'confidence',
  'evidence',
  'failure_reason',
  'failure_message',
  'event_sequence',
  'created_at',
  'updated_at',
  'completed_at',
  'batch_id',
];
const INSERT_DOWSING = `INSERT INTO dowsing_queries (${DOWSING_COLUMNS.join(', ')})
  VALUES (${DOWSING_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
const INSERT_READINGS = `INSERT INTO dowsing_readings (organization_id, mode, query_id, latitude, longitude, confidence, created_at)
  SELECT $1, $2, $3, r.latitude, r.longitude, r.confidence, $7
    FROM unnest($4::float8[], $5::float8[], $6::float8[]) AS r(latitude, longitude, confidence)`;

/**
 * DowsingService.create: the engine's answer before the transaction, then the query row, its
 * `dowsing.query_created` event, its located readings and `dowsing.query_completed` (or
 * `dowsing.query_failed`) in one transaction; 201 with the v1 body (toQueryV1).
 */
async function createDowsingQuery(principal, request, requestId) {
  const [seed, verified] = await Promise.all([
    engineSeed(principal.organizationId),
    verifiedRecord(principal, request.queryType),
  ]);
  const outcome = dowsingEngine.outcome(request, seed, verified, principal.mode);
  const id = typeid('dowse');
  const queryId = id.toString();
  const now = new Date();
  const completed = outcome.status === 'completed';
  const row = {
    id: id.toUUID(),
    organization_id: principal.organizationId,
    mode: principal.mode,
    variant: request.input.variant,
    query_type: request.queryType,
    question: request.question,
    precision_level: request.precisionLevel,
    context: JSON.stringify(request.context),
    input: JSON.stringify(request.input),
    status: outcome.status,
    engine: dowsingEngine.name,
    engine_version: outcome.engineVersion,
    engine_seed: outcome.seed,
    result: completed ? JSON.stringify(outcome.result) : null,
    confidence: completed ? outcome.result.confidence : null,
    evidence: completed ? outcome.evidence : null,
    failure_reason: completed ? null : outcome.reason,
    failure_message: completed ? null : outcome.message,
    event_sequence: 2,
    created_at: now,
    updated_at: now,
    completed_at: now,
    batch_id: null,
  };
  const base = (sequence) => ({
    query_id: queryId,
    query_type: request.queryType,
    variant: request.input.variant,
    sequence,
  });
  const event = (client, type, data) =>
    client.query(INSERT_EVENT, [
      typeid('evt').toUUID(),
      principal.organizationId,
      principal.mode,
      type,
      JSON.stringify(data),
      requestId,
    ]);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      INSERT_DOWSING,
      DOWSING_COLUMNS.map((column) => row[column]),
    );
    await workCases.recordWritten(
      client,
      principal,
      [
        {
          id: row.id,
          organizationId: row.organization_id,
          mode: row.mode,
          variant: row.variant,
          queryType: row.query_type,
          question: row.question,
          context: request.context,
          status: row.status,
          result: completed ? outcome.result : null,
          confidence: row.confidence,
          failureReason: row.failure_reason,
          failureMessage: row.failure_message,
          createdAt: now,
          updatedAt: now,
          completedAt: now,
        },
      ],
      dowsingQueryCase,
    );
    await event(client, 'dowsing.query_created', {
      ...base(1),
      question: request.question,
      created_at: now.toISOString(),
    });
    if (completed) {
      const readings = outcome.readings;
      if (readings.length > 0)
        await client.query(INSERT_READINGS, [
          row.organization_id,
          row.mode,
          row.id,
          readings.map((r) => r.latitude),
          readings.map((r) => r.longitude),
          readings.map((r) => r.confidence),
          now,
        ]);
      await event(client, 'dowsing.query_completed', {
        ...base(2),
        question: request.question,
        answer: outcome.result.answer,
        confidence: outcome.result.confidence,
        coordinates: outcome.result.coordinates ?? null,
        chart_data: outcome.result.chart_data,
        completed_at: now.toISOString(),
      });
    } else
      await event(client, 'dowsing.query_failed', {
        ...base(2),
        reason: outcome.reason,
        message: outcome.message,
        failed_at: now.toISOString(),
      });
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  const result = outcome.result;
  return {
    query_id: queryId,
    status: outcome.status,
    variant: request.input.variant,
    query_type: request.queryType,
    question: request.question,
    created_at: now.toISOString(),
    completed_at: now.toISOString(),
    metadata: {
      engine: dowsingEngine.name,
      engine_version: outcome.engineVersion,
      evidence: completed ? outcome.evidence : null,
      precision_level: request.precisionLevel,
    },
    ...(completed
      ? {
          result: {
            answer: result.answer,
            confidence: result.confidence,
            ...(result.coordinates && { coordinates: result.coordinates }),
            additional_insights: result.additional_insights,
            chart_data: result.chart_data,
            ...(result.variant_result !== null && { variant_result: result.variant_result }),
          },
        }
      : { failure_reason: outcome.reason, failure_message: outcome.message }),
  };
}

// ---------------------------------------------------------------- history

// HistoryService#get's statement (CASE_ROWS of libs/history/src/history-rows.ts) and
// toCaseDetail (apps/api/src/history/v1/history-v1.mapper.ts).
const SELECT_CASE = `SELECT organization_id, mode, id, source_type, source_id, external_id, type, subtype,
  work_status, classified, date, target, client, analysts, duration_minutes, modality, phases, descriptors,
  description, latitude, longitude, confidence_score, chance_baseline, verdict, outcome, location_found,
  true_latitude, true_longitude, verification, independent_verification, accuracy_confirmed, verified_by,
  verified_at, event_sequence, created_at, updated_at
  FROM history_cases WHERE id = $1 AND organization_id = $2 AND mode = $3`;
const SOURCE_PREFIXES = { session: 'sess', analysis: 'anal', dowsing_query: 'dowse' };
// The error distance's own function, built (a module with no imports of its own).
const { haversineMeters } = await import(
  new URL('../dist/libs/statistics/src/geo.js', import.meta.url).href
);
const pointOf = (latitude, longitude) =>
  latitude === null || longitude === null ? null : { latitude, longitude };

async function readCase(principal, publicId) {
  const uuid = parsePublicId('hist', publicId);
  const row =
    uuid === null
      ? undefined
      : (await pool.query(SELECT_CASE, [uuid, principal.organizationId, principal.mode])).rows[0];
  if (!row)
    throw new HttpError(404, 'NOT_FOUND', `No history case with id ${publicId}`, {
      field: 'case_id',
      issue: 'not found',
    });
  const pointed = pointOf(row.latitude, row.longitude);
  const truth = pointOf(row.true_latitude, row.true_longitude);
  return {
    case_id: toPublicId('hist', row.id),
    type: row.type,
    date: row.date.toISOString(),
    target: row.target,
    client: row.client,
    analysts: row.analysts,
    process: {
      duration_minutes: row.duration_minutes,
      modality: row.modality,
      phases: row.phases,
    },
    results: {
      location_found: row.location_found,
      coordinates: pointed,
      description: row.description,
      verification: row.verification,
    },
    outcome: row.outcome,
    confidence_score: row.confidence_score,
    validation: {
      independent_verification: row.independent_verification,
      accuracy_confirmed: row.accuracy_confirmed,
    },
    status: row.work_status,
    descriptors: row.descriptors,
    location: truth ?? pointed,
    verdict: row.verdict,
    verified_coordinates: truth,
    error_distance_km: pointed && truth ? Math.round(haversineMeters(pointed, truth)) / 1000 : null,
    verified_by: row.verified_by,
    verified_at: row.verified_at?.toISOString() ?? null,
    source:
      row.source_type === 'import' || row.source_id === null
        ? null
        : {
            type: row.source_type,
            id: toPublicId(SOURCE_PREFIXES[row.source_type], row.source_id),
          },
    external_id: row.external_id,
    classified: row.classified,
    updated_at: row.updated_at.toISOString(),
  };
}

// ---------------------------------------------------------------- http

function readJsonBody(request) {
  return new Promise((resolve, reject) => {
    const type = request.headers['content-type'] ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
      request.resume();
      reject(
        new HttpError(
          415,
          'UNSUPPORTED_MEDIA_TYPE',
          `Content-Type ${type || '(none)'} is not accepted`,
          { field: 'Content-Type', issue: 'send application/json' },
        ),
      );
      return;
    }
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(
          new HttpError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${BODY_LIMIT} bytes`),
        );
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(
          new HttpError(400, 'INVALID_REQUEST', 'The request body is not valid JSON', {
            field: 'body',
            issue: 'malformed JSON',
          }),
        );
      }
    });
  });
}

function send(response, status, body, headers) {
  const json = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    ...headers,
  });
  response.end(json);
}

const SESSION_PATH = /^\/v1\/sessions\/([^/?]+)$/;
const CASE_PATH = /^\/v1\/history\/([^/?]+)$/;

async function handle(request, response, requestId) {
  const path = request.url.split('?', 1)[0];
  if (request.method === 'GET') {
    const match = SESSION_PATH.exec(path);
    if (match) {
      const principal = await authenticate(request, response, 'remote-viewing:read');
      return send(response, 200, await readSession(principal, decodeURIComponent(match[1])));
    }
    const caseMatch = CASE_PATH.exec(path);
    if (caseMatch) {
      const principal = await authenticate(request, response, 'analytics:read');
      return send(response, 200, await readCase(principal, decodeURIComponent(caseMatch[1])));
    }
    if (path === '/health/live' || path === '/health/ready')
      return send(response, 200, { status: 'ok' });
  } else if (request.method === 'POST' && path === '/v1/sessions') {
    const principal = await authenticate(request, response, 'remote-viewing:write');
    const input = validateCreate(await readJsonBody(request));
    return send(response, 201, await createSession(principal, input, requestId));
  } else if (request.method === 'POST' && path === '/v1/analysis/targets') {
    const principal = await authenticate(request, response, 'remote-viewing:write');
    const input = validateSubmit(await readJsonBody(request));
    return send(response, 201, await submitAnalysis(principal, input, requestId));
  } else if (request.method === 'POST' && path === '/v1/dowsing/query') {
    const principal = await authenticate(request, response, 'dowsing:write');
    const input = validateDowsingQuery(await readJsonBody(request));
    return send(response, 201, await createDowsingQuery(principal, input, requestId));
  }
  throw new HttpError(404, 'NOT_FOUND', `No route ${request.method} ${path}`, {
    issue: 'unknown route',
  });
}

const server = http.createServer((request, response) => {
  const incoming = request.headers['x-request-id'];
  const requestId =
    typeof incoming === 'string' && parsePublicId('req', incoming) !== null
      ? incoming
      : typeid('req').toString();
  response.setHeader('X-Request-Id', requestId);
  handle(request, response, requestId).catch((error) => {
    const known = error instanceof HttpError;
    if (!known) process.stderr.write(`reference-server: ${describeError(error)}\n`);
    const status = known ? error.status : 500;
    const body = {
      error: {
        code: known ? error.code : 'INTERNAL_ERROR',
        message: known ? error.message : 'An unexpected error occurred',
        details: known ? error.details : {},
        request_id: requestId,
      },
    };
    if (!response.headersSent) send(response, status, body, known ? error.headers : {});
    else response.destroy();
  });
});
// As the API (apps/api/src/app.ts): idle keep-alive connections outlive the clients' own idle
// timeouts (undici 4 s), so the client always closes first and never sends on a closing socket.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

await loadKeys();
server.listen(PORT, '0.0.0.0', () => {
  process.stdout.write(`reference server listening on ${server.address().port}\n`);
});

let closing = false;
async function shutdown() {
  if (closing) return;
  closing = true;
  server.close();
  server.closeAllConnections();
  await Promise.allSettled([pool.end(), redis.quit()]);
  process.exit(0);
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
