import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ANALYSIS_STATUSES, type AnalysisStatus } from '#analyses';
import {
  ANALYSIS_PRIORITIES,
  ANALYSIS_TARGET_TYPES,
  type AnalysisPriority,
  type AnalysisTargetType,
} from '#engines';
import { Optional } from '../http/dto-decorators.js';
import { oneOf } from '../http/validation-messages.js';

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
