import { IntersectionType } from '@nestjs/swagger';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';
import { HistorySearchFiltersDto } from '../history-search-filters.dto.js';
import { HistorySearchItemDto } from '../history-search-results.dto.js';

export class HistorySearchQueryV2Dto extends IntersectionType(
  V2ListQueryDto,
  HistorySearchFiltersDto,
) {}

export class HistorySearchV2Dto extends V2List(HistorySearchItemDto) {}
