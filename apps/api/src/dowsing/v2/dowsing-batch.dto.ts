import type { Type as ClassType } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, ValidateNested } from 'class-validator';
import { DOWSING_VARIANTS, type DowsingVariant } from '#engines';
import { oneOf } from '../../http/validation-messages.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { BatchStatusV1Dto } from '../../batches/v1/batch-v1.dto.js';
import { DOWSING_EXAMPLES } from '../dowsing-examples.js';
import {
  ChartAnalysisDto,
  DowsingQueryDto,
  EnergyDetectionDto,
  EnergyMapDto,
  DepthAnalysisDto,
  LocationFindingDto,
  MaterialIdentificationDto,
  MultiPointDto,
} from '../dowsing-request.dto.js';
import { DowsingQueryV2Dto } from './dowsing-v2.dto.js';

export const MAX_DOWSING_BATCH_SIZE = 100;

/** An item whose `variant` names none of the bodies: it is refused naming `variant`. */
export class UnknownVariantItemDto {
  @IsIn(DOWSING_VARIANTS, oneOf(DOWSING_VARIANTS))
  variant!: DowsingVariant;
}

/** The body of a variant with its `variant` named, as one item of a batch. */
function batchItem<T>(body: ClassType<T>, variant: DowsingVariant, name: string) {
  class Item extends (body as ClassType<object>) {
    @ApiProperty({ enum: [variant], description: 'Which body this item is' })
    @IsIn([variant], { message: `must be ${variant}` })
    variant!: DowsingVariant;
  }
  Object.defineProperty(Item, 'name', { value: name });
  return Item;
}

export const BATCH_ITEMS = [
  batchItem(DowsingQueryDto, 'query', 'DowsingQueryBatchItemDto'),
  batchItem(MultiPointDto, 'multi_point', 'MultiPointBatchItemDto'),
  batchItem(EnergyMapDto, 'energy_map', 'EnergyMapBatchItemDto'),
  batchItem(DepthAnalysisDto, 'depth_analysis', 'DepthAnalysisBatchItemDto'),
  batchItem(
    MaterialIdentificationDto,
    'material_identification',
    'MaterialIdentificationBatchItemDto',
  ),
  batchItem(ChartAnalysisDto, 'chart_analysis', 'ChartAnalysisBatchItemDto'),
  batchItem(LocationFindingDto, 'location_finding', 'LocationFindingBatchItemDto'),
  batchItem(EnergyDetectionDto, 'energy_detection', 'EnergyDetectionBatchItemDto'),
] as const;
const VARIANT_OF_ITEM = new Map<unknown, DowsingVariant>(
  BATCH_ITEMS.map((item, i) => [item, DOWSING_VARIANTS[i]!]),
);

export type DowsingBatchItem = { variant: DowsingVariant } & Record<string, unknown>;

export const DOWSING_BATCH_EXAMPLES: RequestExamples = {
  mixed: {
    summary: 'A plain query and two variants',
    value: {
      queries: [
        { variant: 'query', ...DOWSING_EXAMPLES.query.yes_no.value },
        { variant: 'chart_analysis', ...DOWSING_EXAMPLES.chart_analysis.chart.value },
        { variant: 'multi_point', ...DOWSING_EXAMPLES.multi_point.three.value },
      ],
    },
  },
};

@ApiExtraModels(...BATCH_ITEMS)
export class DowsingBatchDto {
  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: MAX_DOWSING_BATCH_SIZE,
    items: { oneOf: BATCH_ITEMS.map((item) => ({ $ref: getSchemaPath(item) })) },
    description:
      'Each item is the body of POST /v1/dowsing/query or of a v1 variant, with `variant` naming which (`query`, `multi_point`, `energy_map`, …); all are answered and stored, or none',
  })
  @IsArray({ message: 'must be an array of queries' })
  @ArrayMinSize(1, { message: 'must hold at least one query' })
  @ArrayMaxSize(MAX_DOWSING_BATCH_SIZE, {
    message: `can hold at most ${MAX_DOWSING_BATCH_SIZE} queries`,
  })
  @ValidateNested({ each: true })
  @Type(() => UnknownVariantItemDto, {
    discriminator: {
      property: 'variant',
      subTypes: BATCH_ITEMS.map((item) => ({ value: item, name: VARIANT_OF_ITEM.get(item)! })),
    },
    keepDiscriminatorProperty: true,
  })
  queries!: DowsingBatchItem[];
}

export class DowsingBatchCreatedDto extends BatchStatusV1Dto {
  @ApiProperty({ type: [DowsingQueryV2Dto], description: 'In the order of the request' })
  queries!: DowsingQueryV2Dto[];
}
