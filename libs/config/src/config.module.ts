import { existsSync } from 'node:fs';
import { Global, Module } from '@nestjs/common';
import {
  parseSettings,
  type AccessTokenCacheSettings,
  type OutboundSettings,
  type QueueLockSettings,
  type RateLimitSettings,
  type Settings,
  type WebhookSettings,
} from './settings.js';

/** Injection token for the validated settings; a class so it needs no @Inject. */
export abstract class AppSettings implements Settings {
  declare databaseUrl: string;
  declare databasePoolMax: number;
  declare databaseReplicaUrls: string[];
  declare databaseReplicaMaxLagMs: number;
  declare redisUrl: string;
  declare redisClusterNodes: Settings['redisClusterNodes'];
  declare redisPrefix: string;
  declare dnsResolvers: string[];
  declare port: number;
  declare publicUrl: string;
  declare sandboxUrl: string;
  declare bootstrapClient: Settings['bootstrapClient'];
  declare bootstrapAdmin: Settings['bootstrapAdmin'];
  declare logLevel: Settings['logLevel'];
  declare simulatedStepMs: number;
  declare analystClockScale: number;
  declare analystDeadlineSweepMs: number;
  declare workerConcurrency: number;
  declare queueLocks: QueueLockSettings;
  declare workerHealthPort: number | null;
  declare shutdownGraceMs: number;
  declare trustedProxies: string[];
  declare bodyLimitBytes: number;
  declare dashboardDir: string;
  declare historyImportMaxBytes: number;
  declare signingKeySecret: string | null;
  declare signingKeyRotationDays: number;
  declare accessTokenCache: AccessTokenCacheSettings;
  declare wsHeartbeatSeconds: number;
  declare wsMaxConnectionsPerOrganization: number;
  declare webhooks: WebhookSettings;
  declare outbound: OutboundSettings;
  declare eventRetentionDays: number;
  declare reportRetentionDays: number;
  declare auditRetentionDays: number;
  declare rateLimits: RateLimitSettings;
}

/** Reads the environment once; tests pass their own settings with `forSettings`. */
@Global()
@Module({})
export class ConfigModule {
  static forSettings(settings: Settings) {
    return {
      module: ConfigModule,
      providers: [{ provide: AppSettings, useValue: settings }],
      exports: [AppSettings],
    };
  }

  static fromEnvironment() {
    return ConfigModule.forSettings(loadSettings());
  }
}

/** Settings from the environment, after a `.env` file in the working directory (real variables win). */
export function loadSettings(): Settings {
  if (existsSync('.env')) process.loadEnvFile('.env');
  return parseSettings(process.env);
}
