import { Get, Res, ServiceUnavailableException, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService } from '@nestjs/terminus';
import type { Response } from 'express';
import { ApiController } from '../http/api-controller.decorator.js';
import { Public } from '../http/auth.decorator.js';
import { ReadinessChecks } from './readiness.js';
import { ShutdownDrain } from './shutdown-drain.js';

const HEALTH_SCHEMA = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok', 'error', 'degraded', 'shutting_down'] } },
};

@ApiTags('Operations')
@ApiController({ path: 'health', version: VERSION_NEUTRAL })
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly readiness: ReadinessChecks,
    private readonly drain: ShutdownDrain,
  ) {}

  @Get('live')
  @Public()
  @ApiOperation({ summary: 'Liveness: the process is up' })
  @ApiOkResponse({ schema: HEALTH_SCHEMA })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @ApiOperation({ summary: 'Readiness: PostgreSQL, Redis and the queues answer' })
  @ApiOkResponse({ schema: HEALTH_SCHEMA })
  @ApiResponse({
    status: 503,
    description:
      'A dependency is down (`error`), or the instance is draining after SIGTERM (`shutting_down`): a load balancer takes it out while it still serves',
    schema: HEALTH_SCHEMA,
  })
  async ready(@Res({ passthrough: true }) response: Response) {
    if (this.drain.draining) {
      response.status(503);
      return { status: 'shutting_down' };
    }
    try {
      return await this.health.check(this.readiness.all());
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      response.status(503);
      return error.getResponse();
    }
  }
}
