import { describe, expect, it } from 'vitest';
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

describe('settings', () => {
  it('start in production with the key that seals the secrets at rest', () => {
    const secret = 'a-production-secret-of-32-characters';
    expect(
      parseSettings({ ...base, NODE_ENV: 'production', SIGNING_KEY_SECRET: secret }),
    ).toMatchObject({ signingKeySecret: secret });
  });

  it('have the documented defaults', () => {
    expect(parseSettings(base)).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'sas',
      port: 3000,
      publicUrl: 'http://localhost:3000',
      bootstrapClient: null,
      bootstrapAdmin: null,
      logLevel: 'info',
      simulatedStepMs: 500,
      bodyLimitBytes: 1024 * 1024,
      signingKeySecret: null,
      signingKeyRotationDays: 90,
      wsHeartbeatSeconds: 30,
      wsMaxConnectionsPerOrganization: 200,
      webhooks: {
        extraCaPem: null,
        privateAllowlist: [],
        retryScale: 1,
        endpointConcurrency: 10,
        workerConcurrency: 100,
      },
      eventRetentionDays: 30,
      rateLimits: {
        enabled: true,
        onRedisFailure: 'allow',
        windowScale: 1,
        tokenPerClient: 120,
        tokenPerAddress: 600,
        signInPerAddress: 30,
      },
    });
  });

  it('derive PUBLIC_URL from PORT and drop a trailing slash', () => {
    expect(parseSettings({ ...base, PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(parseSettings({ ...base, PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe(
      'https://api.example.com',
    );
  });

  it('read the webhook settings', () => {
    const { webhooks } = parseSettings({
      ...base,
      WEBHOOK_PRIVATE_ALLOWLIST: ' 127.0.0.1, 10.0.0.0/8 ,Receiver.Internal',
      WEBHOOK_RETRY_SCALE: '0.001',
    });
    expect(webhooks.privateAllowlist).toEqual(['127.0.0.1', '10.0.0.0/8', 'receiver.internal']);
    expect(webhooks.retryScale).toBe(0.001);
  });

  it('read sizes with units', () => {
    expect(parseSettings({ ...base, BODY_LIMIT: '512kb' }).bodyLimitBytes).toBe(512 * 1024);
    expect(parseSettings({ ...base, BODY_LIMIT: '2mb' }).bodyLimitBytes).toBe(2 * 1024 * 1024);
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
    [{ REDIS_PREFIX: 'a:b' }, 'REDIS_PREFIX'],
    [{ SIGNING_KEY_SECRET: 'short' }, 'SIGNING_KEY_SECRET'],
    // Production keeps no secret in clear: it will not start without the key that seals them.
    [{ NODE_ENV: 'production' }, 'SIGNING_KEY_SECRET'],
    [{ WS_HEARTBEAT_SECONDS: '0' }, 'WS_HEARTBEAT_SECONDS'],
    [{ WS_MAX_CONNECTIONS_PER_ORGANIZATION: '0' }, 'WS_MAX_CONNECTIONS_PER_ORGANIZATION'],
    [{ WEBHOOK_EXTRA_CA_FILE: '/nonexistent/ca.pem' }, 'WEBHOOK_EXTRA_CA_FILE'],
    [{ WEBHOOK_EXTRA_CA_FILE: '/etc/hostname' }, 'WEBHOOK_EXTRA_CA_FILE'],
    [{ WEBHOOK_PRIVATE_ALLOWLIST: '10.0.0.0/33' }, 'WEBHOOK_PRIVATE_ALLOWLIST'],
    [{ WEBHOOK_PRIVATE_ALLOWLIST: 'bad host!' }, 'WEBHOOK_PRIVATE_ALLOWLIST'],
    [{ WEBHOOK_RETRY_SCALE: '0' }, 'WEBHOOK_RETRY_SCALE'],
    [{ WEBHOOK_RETRY_SCALE: 'fast' }, 'WEBHOOK_RETRY_SCALE'],
    [{ EVENT_RETENTION_DAYS: '0' }, 'EVENT_RETENTION_DAYS'],
  ])('stop on %j naming %s', (env, setting) => {
    expect(problemWith(env)).toBe(setting);
  });
});
