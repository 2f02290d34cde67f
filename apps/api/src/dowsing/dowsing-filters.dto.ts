import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { DOWSING_STATUSES, type DowsingStatus } from '#dowsing';
import {
  DOWSING_QUERY_TYPES,
  DOWSING_VARIANTS,
  type DowsingQueryType,
  type DowsingVariant,
} from '#engines';
import { Optional } from '../http/dto-decorators.js';
import { oneOf } from '../http/validation-messages.js';

/** The filters both lists take, in any combination. */
export class DowsingFiltersDto {
  @ApiPropertyOptional({ enum: DOWSING_QUERY_TYPES })
  @Optional()
  @IsIn(DOWSING_QUERY_TYPES, oneOf(DOWSING_QUERY_TYPES))
  query_type?: DowsingQueryType;

  @ApiPropertyOptional({ enum: DOWSING_STATUSES })
  @Optional()
  @IsIn(DOWSING_STATUSES, oneOf(DOWSING_STATUSES))
  status?: DowsingStatus;

  @ApiPropertyOptional({ enum: DOWSING_VARIANTS })
  @Optional()
  @IsIn(DOWSING_VARIANTS, oneOf(DOWSING_VARIANTS))
  variant?: DowsingVariant;
}
