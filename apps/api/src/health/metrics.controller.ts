import { Get, Header, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiController } from '../http/api-controller.decorator.js';
import { Public } from '../http/auth.decorator.js';
import { metricsRegistry } from './metrics.js';

@ApiTags('Operations')
@ApiController({ path: 'metrics', version: VERSION_NEUTRAL })
export class MetricsController {
  @Get()
  @Public()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ summary: 'Prometheus metrics' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ content: { 'text/plain': { schema: { type: 'string' } } } })
  metrics(): Promise<string> {
    return metricsRegistry.metrics();
  }
}
