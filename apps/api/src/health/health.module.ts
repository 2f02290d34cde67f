import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseModule } from '#database';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { ReadinessChecks } from './readiness.js';
import { ShutdownDrain } from './shutdown-drain.js';

/** Liveness, readiness (PostgreSQL, Redis, the queues; failing while draining) and the Prometheus metrics. */
@Module({
  imports: [TerminusModule, DatabaseModule],
  controllers: [HealthController, MetricsController],
  providers: [ReadinessChecks, ShutdownDrain],
})
export class HealthModule {}
