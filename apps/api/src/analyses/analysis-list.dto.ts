import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ANALYSIS_STATUSES, type AnalysisStatus } from '#analyses';
import {
  ANALYSIS_PRIORITIES,
  ANALYSIS_TARGET_TYPES,
  type AnalysisPriority,
  type AnalysisTargetType,
} from '#engines';
import { Optional } from '../http/dto-decorators.js';
import { V1List, V1ListQueryDto } from '../http/v1-list.dto.js';
import { V2List, V2ListQueryDto } from '../http/v2-list.js';
import { oneOf } from '../http/validation-messages.js';
import { AnalysisStatusDto } from './analysis.dto.js';

/** The filters both lists take, in any combination. */
export class AnalysisFiltersDto {
  @ApiPropertyOptional({ enum: ANALYSIS_STATUSES })
  @Optional()
  @IsIn(ANALYSIS_STATUSES, oneOf(ANALYSIS_STATUSES))
  status?: AnalysisStatus;

  @ApiPropertyOptional({ enum: ANALYSIS_TARGET_TYPES })
  @Optional()
  @IsIn(ANALYSIS_TARGET_TYPES, oneOf(ANALYSIS_TARGET_TYPES))
  target_type?: AnalysisTargetType;

  @ApiPropertyOptional({ enum: ANALYSIS_PRIORITIES })
  @Optional()
  @IsIn(ANALYSIS_PRIORITIES, oneOf(ANALYSIS_PRIORITIES))
  priority?: AnalysisPriority;
}

export class AnalysisListQueryV1Dto extends IntersectionType(V1ListQueryDto, AnalysisFiltersDto) {}

export class AnalysisListQueryV2Dto extends IntersectionType(V2ListQueryDto, AnalysisFiltersDto) {}

export class AnalysisListV1Dto extends V1List(AnalysisStatusDto) {}

export class AnalysisListV2Dto extends V2List(AnalysisStatusDto) {}
