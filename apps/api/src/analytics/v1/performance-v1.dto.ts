import { ApiExtraModels, ApiProperty } from '@nestjs/swagger';
import { PERFORMANCE_WORK_LIMIT, WORK_KINDS_MEASURED } from '#analytics';
import { nullableRef } from '../../http/nullable-ref.js';
import { RateDto } from '../../http/rate.dto.js';
import { CaseGroupDto, TypeGroupDto } from '../case-group.dto.js';
import { ModalityGroupDto } from './history-analytics-v1.dto.js';

export class ProcessingSecondsDto {
  @ApiProperty({ minimum: 0, description: 'Median seconds from creation to completion' })
  p50!: number;

  @ApiProperty({ minimum: 0, description: '90th percentile (linear interpolation)' })
  p90!: number;

  @ApiProperty({ minimum: 0, description: '99th percentile (linear interpolation)' })
  p99!: number;
}

@ApiExtraModels(RateDto, ProcessingSecondsDto)
export class EnginePerformanceDto {
  @ApiProperty({ enum: WORK_KINDS_MEASURED, description: 'The kind of work' })
  kind!: string;

  @ApiProperty({ example: 'simulated', description: 'The engine that did it' })
  engine!: string;

  @ApiProperty({ type: 'integer', description: 'Finished pieces measured (completed or failed)' })
  work!: number;

  @ApiProperty({ type: 'integer', description: 'Of them, failed' })
  failed!: number;

  @ApiProperty({
    ...nullableRef(RateDto),
    description:
      'Hits among the measured work whose case has a verdict, against the mean chance baseline of those cases; null when none is verified',
  })
  hit_rate!: RateDto | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description:
      'Mean SAIC accuracy (Σmin(t,r)/Σt: the share of the target described) of the measured work that records it; null as `scores_note` says',
  })
  accuracy!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description:
      'Mean SAIC reliability (Σmin(t,r)/Σr: the share of the response that is correct); null as `scores_note` says',
  })
  reliability!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why accuracy and reliability are null; null when they are not',
  })
  scores_note!: string | null;

  @ApiProperty({
    ...nullableRef(ProcessingSecondsDto),
    description: 'Processing time percentiles of the completed work; null when none completed',
  })
  processing_seconds!: ProcessingSecondsDto | null;
}

export class AnalystPerformanceDto extends CaseGroupDto {
  @ApiProperty({ description: 'The analyst, as cases name them in `analysts`' })
  analyst_id!: string;
}

export class PerformanceDto {
  @ApiProperty({
    type: [EnginePerformanceDto],
    description: `Per kind of work and engine, over the newest ${PERFORMANCE_WORK_LIMIT.toLocaleString('en')} finished pieces of each kind (a bounded read of recent work), by kind then engine`,
  })
  by_engine!: EnginePerformanceDto[];

  @ApiProperty({
    type: [AnalystPerformanceDto],
    description:
      'Per analyst named by your cases, over every case (a case counts once for each analyst it names), most cases first',
  })
  by_analyst!: AnalystPerformanceDto[];

  @ApiProperty({
    type: [TypeGroupDto],
    description: 'Per type over every case, as GET /v1/history/analytics',
  })
  by_type!: TypeGroupDto[];

  @ApiProperty({
    type: [ModalityGroupDto],
    description: 'Per modality over every case, as GET /v1/history/analytics',
  })
  by_modality!: ModalityGroupDto[];
}
