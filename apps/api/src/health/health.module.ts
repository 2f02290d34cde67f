import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseModule } from '#database';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { ReadinessChecks } from './readiness.js';

/** Liveness and readiness (PostgreSQL, Redis, the queues) and the Prometheus metrics. */
@Module({
  imports: [TerminusModule, DatabaseModule],
  controllers: [HealthController, MetricsController],
  providers: [ReadinessChecks],
})
export class HealthModule {}
