import { Get, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { HistoryPatternsService, PATTERN_WINDOW } from '#history';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { filtersOf } from '../history.mapper.js';
import { RateDto } from '../../http/rate.dto.js';
import {
  HistoryHitAssociationDto,
  HistoryPatternsDto,
  HistoryPatternsQueryDto,
} from './history-patterns.dto.js';
import { toHistoryPatterns } from './history-patterns.mapper.js';

@ApiTags('History (v2)')
@ApiExtraModels(RateDto, HistoryHitAssociationDto)
@ApiResponse({
  status: 400,
  description: 'VALIDATION_ERROR naming the parameter',
  type: ErrorEnvelopeDto,
})
@ApiController({ path: 'history', version: '2' })
export class HistoryPatternsController {
  constructor(private readonly patterns: HistoryPatternsService) {}

  @Get('patterns')
  @Auth({ scopes: [Scope.AnalyticsRead] })
  @ApiOperation({
    summary: 'Recurring descriptors, places and times across the history',
    description: `Looks at the newest ${PATTERN_WINDOW.toLocaleString('en')} completed cases of the filters (classified cases never count) in the caller's mode. Descriptors and grid cells of the cases' locations are compared with the organisation's hit rate (lift = their hit rate / the organisation's); weekdays, hours (UTC) and months with a uniform share. Every rate is a rate object (Wilson interval, exact binomial p-value against its baseline), and each family's p-values are corrected with Benjamini–Hochberg (\`p_adjusted\`). \`warnings\` say when there is too little to say much.`,
  })
  @ApiOkResponse({ type: HistoryPatternsDto })
  async historyPatterns(
    @CurrentPrincipal() principal: Principal,
    @Query() query: HistoryPatternsQueryDto,
  ): Promise<HistoryPatternsDto> {
    const filters = filtersOf(query);
    const found = await this.patterns.patterns(principal, {
      type: filters.type,
      dateFrom: filters.dateFrom,
      dateBefore: filters.dateBefore,
      minSupport: query.min_support,
      gridDegrees: query.grid_degrees,
    });
    return toHistoryPatterns(found);
  }
}
