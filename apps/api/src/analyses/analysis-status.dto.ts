import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ANALYSIS_STATUSES } from '#analyses';
import {
  ANALYSIS_PRIORITIES,
  ANALYSIS_STEPS,
  ANALYSIS_TARGET_TYPES,
  ANALYSIS_TYPES,
} from '#engines';
import { nullableObject } from '../http/nullable-ref.js';

/** An analysis as both versions show it: its status, progress and reference material. */

export const ANALYSIS_ID = {
  example: 'anal_01jh2x7v4ke8rbk3a8y0v0d7qz',
  pattern: '^anal_[0-9a-z]{26}$',
};
const CURRENT_STEPS = ['queued', ...new Set(ANALYSIS_STEPS), 'completed', 'failed'];
const NULLABLE_TIME = { type: String, format: 'date-time', nullable: true } as const;

const COORDINATES = {
  latitude: { type: 'number', minimum: -90, maximum: 90 },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
};
const EXIF = {
  captured_at: { type: 'string', format: 'date-time', nullable: true },
  latitude: { type: 'number', nullable: true, minimum: -90, maximum: 90 },
  longitude: { type: 'number', nullable: true, minimum: -180, maximum: 180 },
};

export interface TargetCoordinatesOutDto {
  latitude: number;
  longitude: number;
}

export interface PhotoExifDto {
  captured_at: string | null;
  latitude: number | null;
  longitude: number | null;
}

export class MaterialItemDto {
  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ enum: ['photo', 'document'] })
  kind!: string;

  @ApiProperty({
    enum: ['pending', 'fetched', 'failed'],
    description:
      '`pending` until the worker has fetched it; `failed`: not fetched, or not what its kind must be (a failure never fails the analysis: it becomes a finding and a risk factor)',
  })
  status!: string;

  @ApiProperty({ type: String, nullable: true, example: null })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Hex SHA-256 of the content' })
  sha256!: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  size_bytes!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Sniffed from the content; the declared type is not trusted',
    example: 'image/jpeg',
  })
  content_type!: string | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'Photos' })
  width?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'Photos' })
  height?: number | null;

  @ApiPropertyOptional({
    ...nullableObject(EXIF),
    description:
      'Photos: EXIF DateTimeOriginal (read as UTC unless the photo gives its offset) and GPS position; null when the photo has no EXIF',
  })
  exif?: PhotoExifDto | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: 'Documents (1 for plain text)',
  })
  pages?: number | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Documents: the first 2,000 characters of the text',
  })
  text_excerpt?: string | null;
}

export class ReferenceMaterialOutDto {
  @ApiProperty({ ...nullableObject(COORDINATES), description: "The target's position, if given" })
  coordinates!: TargetCoordinatesOutDto | null;

  @ApiProperty({
    type: [MaterialItemDto],
    description: 'Photos, then documents, in the order submitted',
  })
  items!: MaterialItemDto[];
}

export class AnalysisStatusDto {
  @ApiProperty(ANALYSIS_ID)
  analysis_id!: string;

  @ApiProperty({ enum: ANALYSIS_TARGET_TYPES })
  target_type!: string;

  @ApiProperty({ enum: ANALYSIS_TYPES })
  analysis_type!: string;

  @ApiProperty({ enum: ANALYSIS_PRIORITIES })
  priority!: string;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({
    enum: ANALYSIS_STATUSES,
    description: 'queued → processing → completed | failed (cancelled analyses are failed)',
  })
  status!: string;

  @ApiProperty({ minimum: 0, maximum: 100, description: "Percent of the engine's steps done" })
  progress!: number;

  @ApiProperty({ enum: CURRENT_STEPS })
  current_step!: string;

  @ApiProperty()
  results_available!: boolean;

  @ApiProperty({ type: ReferenceMaterialOutDto })
  reference_material!: ReferenceMaterialOutDto;

  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1 })
  confidence_score!: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty(NULLABLE_TIME)
  started_at!: string | null;

  @ApiProperty(NULLABLE_TIME)
  completed_at!: string | null;

  @ApiProperty(NULLABLE_TIME)
  estimated_completion!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Human-readable, from start to finish',
    example: '4.2 seconds',
  })
  processing_time!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The batch it was submitted in' })
  batch_id!: string | null;

  @ApiPropertyOptional({
    description: 'Present when failed: engine_failure, deadline_exceeded or cancelled',
  })
  failure_reason?: string;

  @ApiPropertyOptional({ description: 'Present when failed' })
  failure_message?: string;
}
