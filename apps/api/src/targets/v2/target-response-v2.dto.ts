import { ApiExtraModels, ApiProperty } from '@nestjs/swagger';
import { TARGET_PHOTO_TYPES, type TargetPhotoStatus, type TargetPhotoType } from '#analysts';
import { nullableRef } from '../../http/nullable-ref.js';
import { V2List } from '../../http/v2-list.js';
import { TARGET_ID_EXAMPLE, TARGET_PHOTO_ID_EXAMPLE } from './target-v2.dto.js';

export class TargetPositionDto {
  @ApiProperty({ example: 48.8584 })
  latitude!: number;

  @ApiProperty({ example: 2.2945 })
  longitude!: number;
}

export class TargetPhotoDto {
  @ApiProperty({ example: TARGET_PHOTO_ID_EXAMPLE })
  photo_id!: string;

  @ApiProperty({ description: 'The URL it was fetched from, as given' })
  source_url!: string;

  @ApiProperty({
    enum: ['fetched', 'failed'],
    description: '`fetched`: stored and served at `url`; `failed`: see `failure`',
  })
  status!: TargetPhotoStatus;

  @ApiProperty({
    type: String,
    enum: [...TARGET_PHOTO_TYPES, null],
    nullable: true,
    description: 'The type read from the bytes (never the server’s claim); null when failed',
  })
  content_type!: TargetPhotoType | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Pixels; null when failed' })
  width!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Pixels; null when failed' })
  height!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Where the stored photo is served (same credentials); null when failed',
  })
  url!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      'Why it failed, in one sentence (unreachable, refused destination, HTTP 404, too large, not a PNG, JPEG, WebP or GIF image); null when fetched',
  })
  failure!: string | null;
}

@ApiExtraModels(TargetPositionDto)
export class TargetDto {
  @ApiProperty({ example: TARGET_ID_EXAMPLE })
  target_id!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({ type: [String], description: 'Trimmed, lower case, each once' })
  descriptors!: string[];

  @ApiProperty({
    ...nullableRef(TargetPositionDto),
    description: 'Where it is; null if not given',
  })
  coordinates!: TargetPositionDto | null;

  @ApiProperty({ type: [TargetPhotoDto], description: 'In the order given' })
  photos!: TargetPhotoDto[];

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class TargetListDto extends V2List(TargetDto) {}
