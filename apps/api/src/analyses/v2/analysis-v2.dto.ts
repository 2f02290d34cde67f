import { IntersectionType } from '@nestjs/swagger';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';
import { AnalysisFiltersDto } from '../analysis-filters.dto.js';
import { AnalysisStatusDto } from '../analysis-status.dto.js';

export class AnalysisListQueryV2Dto extends IntersectionType(V2ListQueryDto, AnalysisFiltersDto) {}

export class AnalysisListV2Dto extends V2List(AnalysisStatusDto) {}
