import { Injectable, Logger } from '@nestjs/common';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { AppError, toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { EventLog } from '#events';
import { OrganizationLimitsCache, type OrganizationLimits } from '#organizations';
import { RedisService } from '#queue';

export type WindowName = 'minute' | 'hour' | 'day';

/** One counted window after this request. */
export interface WindowState {
  name: WindowName;
  /**
   * The setting it enforces, as error details name it: the organisation's, or
   * ANONYMOUS_RATE_PER_ADDRESS for requests without a known credential (AddressLimiter).
   */
  setting:
    | 'requests_per_minute'
    | 'requests_per_hour'
    | 'requests_per_day'
    | 'requests_per_minute_per_address';
  limit: number;
  /** Requests counted in the window, this one included (refused ones too). */
  used: number;
  /** Requests left in the window (0 once over). */
  remaining: number;
  /** Length of the window in seconds (as scaled). */
  seconds: number;
  /** Seconds until it starts afresh (at least 1). */
  resetSeconds: number;
}

export interface LimitVerdict {
  windows: WindowState[];
  /** The window this request went over, if any: the request is refused. */
  exceeded: WindowState | null;
}

const WINDOWS = [
  {
    name: 'minute',
    setting: 'requests_per_minute',
    seconds: 60,
    quota: false,
    limitOf: (limits: OrganizationLimits) => limits.requestsPerMinute,
  },
  {
    name: 'hour',
    setting: 'requests_per_hour',
    seconds: 3600,
    quota: true,
    limitOf: (limits: OrganizationLimits) => limits.requestsPerHour,
  },
  {
    name: 'day',
    setting: 'requests_per_day',
    seconds: 86_400,
    quota: true,
    limitOf: (limits: OrganizationLimits) => limits.requestsPerDay,
  },
] as const;

type Counter = (typeof WINDOWS)[number] & { limiter: RateLimiterRedis; scaledSeconds: number };

/** Share of a quota at which `account.usage_threshold_reached` is announced, once per window. */
export const USAGE_THRESHOLD = 0.8;
const WARN_EVERY_MS = 10_000;

/**
 * The plan's requests per minute and the tier's hourly and daily quotas,
 * counted per organisation and mode in Redis by rate-limiter-flexible (one
 * atomic script per window, fixed windows that start with the first request),
 * so every API instance shares the counts. The minute window is counted
 * first: a request refused there does not use up the quotas. Whichever
 * window is exhausted refuses the request: the stricter one answers.
 */
@Injectable()
export class RequestLimiter {
  private readonly logger = new Logger(RequestLimiter.name);
  private readonly minute: Counter;
  /** The hourly and daily quotas, counted once the minute allows the request. */
  private readonly quotas: Counter[];
  private lastWarning = 0;

  constructor(
    redis: RedisService,
    private readonly settings: AppSettings,
    private readonly limits: OrganizationLimitsCache,
    private readonly sql: Sql,
    private readonly events: EventLog,
  ) {
    const [minute, ...quotas] = WINDOWS.map((window): Counter => {
      const scaledSeconds = Math.max(
        1,
        Math.round(window.seconds * settings.rateLimits.windowScale),
      );
      const limiter = new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix: `${settings.redisPrefix}:rate:${window.name}`,
        // Limits differ per organisation, so the counter only counts; this class decides.
        points: Number.MAX_SAFE_INTEGER,
        duration: scaledSeconds,
        // While Redis is away, fail at once rather than queue the request behind a reconnect.
        rejectIfRedisNotReady: true,
      });
      return { ...window, limiter, scaledSeconds };
    });
    this.minute = minute!;
    this.quotas = quotas;
  }

  /**
   * Counts one request of the tenant. Null when limits are off, the
   * organisation is unknown, or Redis could not count it (then the request
   * is allowed and a warning logged, or refused with 503 when
   * RATE_LIMIT_ON_REDIS_FAILURE=deny).
   */
  async check(tenant: Tenant, requestId: string | null): Promise<LimitVerdict | null> {
    if (!this.settings.rateLimits.enabled) return null;
    const limits = await this.limits.get(tenant.organizationId);
    if (!limits) return null;
    const key = `${tenant.organizationId}:${tenant.mode}`;
    try {
      const minute = (await this.count(this.minute, key, limits, tenant, requestId))!;
      const windows = [minute];
      if (!isOver(minute)) {
        const quotas = await Promise.all(
          this.quotas.map((counter) => this.count(counter, key, limits, tenant, requestId)),
        );
        windows.push(...quotas.filter((w): w is WindowState => w !== null));
      }
      return { windows, exceeded: windows.find(isOver) ?? null };
    } catch (error) {
      return this.redisFailed(error);
    }
  }

  /**
   * The requests counted in each window so far, without counting one (the
   * dashboard's usage); null when limits are off or Redis does not answer.
   */
  async usage(tenant: Tenant): Promise<
    | {
        name: WindowName;
        setting: WindowState['setting'];
        used: number;
        resetSeconds: number | null;
      }[]
    | null
  > {
    if (!this.settings.rateLimits.enabled) return null;
    const key = `${tenant.organizationId}:${tenant.mode}`;
    try {
      return await Promise.all(
        [this.minute, ...this.quotas].map(async (counter) => {
          const result = await counter.limiter.get(key);
          return {
            name: counter.name,
            setting: counter.setting,
            used: result?.consumedPoints ?? 0,
            resetSeconds: result ? Math.max(1, Math.ceil(result.msBeforeNext / 1000)) : null,
          };
        }),
      );
    } catch {
      return null;
    }
  }

  private async count(
    counter: Counter,
    key: string,
    limits: OrganizationLimits,
    tenant: Tenant,
    requestId: string | null,
  ): Promise<WindowState | null> {
    const limit = counter.limitOf(limits);
    if (limit === null) return null;
    const result = await counter.limiter.consume(key);
    const state: WindowState = {
      name: counter.name,
      setting: counter.setting,
      limit,
      remaining: Math.max(0, limit - result.consumedPoints),
      seconds: counter.scaledSeconds,
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
      used: result.consumedPoints,
    };
    // Exactly one request of a quota's window reaches the threshold: it announces it.
    if (counter.quota && result.consumedPoints === Math.ceil(limit * USAGE_THRESHOLD)) {
      void this.announceThreshold(tenant, state, requestId);
    }
    return state;
  }

  private async announceThreshold(
    tenant: Tenant,
    state: WindowState,
    requestId: string | null,
  ): Promise<void> {
    const resetsAt = new Date(Date.now() + state.resetSeconds * 1000);
    try {
      await this.sql.transaction((tx) =>
        this.events.append(
          tx,
          tenant,
          'account.usage_threshold_reached',
          {
            // The public id (`org_…`), as every id the API shows.
            organization_id: toPublicId('organization', tenant.organizationId),
            quota: state.setting,
            limit: state.limit,
            used: state.used,
            threshold_percent: USAGE_THRESHOLD * 100,
            resets_at: resetsAt.toISOString(),
            // One announcement per window: its end orders them.
            sequence: Math.floor(resetsAt.getTime() / 1000),
          },
          requestId,
        ),
      );
    } catch (error) {
      this.logger.warn({ err: error, requestId }, 'usage threshold event not written');
    }
  }

  private redisFailed(error: unknown): null {
    const now = Date.now();
    if (now - this.lastWarning > WARN_EVERY_MS) {
      this.lastWarning = now;
      this.logger.warn(
        { err: error, onRedisFailure: this.settings.rateLimits.onRedisFailure },
        'request limits cannot be counted (Redis unavailable)',
      );
    }
    if (this.settings.rateLimits.onRedisFailure === 'deny') {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'Request limits cannot be checked right now; try again shortly',
        { issue: 'the rate limiter is unavailable' },
        { 'Retry-After': '5' },
      );
    }
    return null;
  }
}

function isOver(window: WindowState): boolean {
  return window.used > window.limit;
}

/**
 * The response headers of a counted request: X-RateLimit-* for the window
 * closest to exhaustion (least left, relative to its limit), the IETF
 * RateLimit-Policy and RateLimit fields, and Retry-After when refused.
 */
export function limitHeaders(verdict: LimitVerdict): Record<string, string> {
  const closest =
    verdict.exceeded ??
    verdict.windows.reduce((a, b) => (b.remaining / b.limit < a.remaining / a.limit ? b : a));
  const nowSeconds = Math.floor(Date.now() / 1000);
  return {
    'X-RateLimit-Limit': String(closest.limit),
    'X-RateLimit-Remaining': String(closest.remaining),
    'X-RateLimit-Reset': String(nowSeconds + closest.resetSeconds),
    'RateLimit-Policy': verdict.windows
      .map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`)
      .join(', '),
    RateLimit: `"${closest.name}";r=${closest.remaining};t=${closest.resetSeconds}`,
    ...(verdict.exceeded ? { 'Retry-After': String(verdict.exceeded.resetSeconds) } : {}),
  };
}

/** The 429 of a window gone over, naming the setting, with every limit header. */
export function rateLimited(window: WindowState, headers: Record<string, string>): AppError {
  return new AppError(
    'RATE_LIMITED',
    `Too many requests: ${window.limit} per ${window.name} allowed, used up; try again in ${window.resetSeconds} s`,
    {
      field: window.setting,
      issue: `at most ${window.limit} requests per ${window.name}`,
      limit: window.limit,
      window: window.name,
    },
    headers,
  );
}
