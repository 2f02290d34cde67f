import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsNumber,
  IsObject,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { DESCRIPTOR_TERMS } from '#engines';
import { MAX_SKETCH_BYTES, MAX_SKETCHES } from '#analysts';
import { Optional } from '../http/dto-decorators.js';
import type { RequestExamples } from '../http/request-examples.js';
import { FreeText, SingleLineText } from '../http/text-rules.js';

export const MAX_DESCRIPTORS = 50;
export const MAX_NOTES = 10_000;

const LATITUDE = { message: 'must be a number from -90 to 90' };
const LONGITUDE = { message: 'must be a number from -180 to 180' };
const CONFIDENCE = { message: 'must be a number from 0 to 1' };

export class SubmittedCoordinatesDto {
  @ApiProperty({ minimum: -90, maximum: 90, example: 48.8584 })
  @IsNumber({ allowNaN: false, allowInfinity: false }, LATITUDE)
  @Min(-90, LATITUDE)
  @Max(90, LATITUDE)
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180, example: 2.2945 })
  @IsNumber({ allowNaN: false, allowInfinity: false }, LONGITUDE)
  @Min(-180, LONGITUDE)
  @Max(180, LONGITUDE)
  longitude!: number;
}

export const SUBMISSION_DESCRIPTION = [
  "An assigned analyst's submission, with the analyst's own access token (authorization code flow; never an API key). One submission per analyst: posting again before the deadline replaces it (an amendment); after the deadline, or once the work is closed, 409. Anyone without an assignment on the work gets 404.",
  '',
  `Send JSON, or \`multipart/form-data\` to upload sketches: the fields \`descriptors\` (repeat the field, or one comma-separated value), \`latitude\` and \`longitude\`, \`notes\`, \`confidence\`, and up to ${MAX_SKETCHES} files under \`sketches\` (PNG, JPEG or SVG, ${MAX_SKETCH_BYTES / 1024 ** 2} MiB each, typed by their bytes — the declared type is ignored; SVG is sanitised of scripts, event handlers and every external reference). An amendment in JSON keeps the earlier sketches; one in multipart with files replaces them.`,
  '',
  `Descriptors: the vocabulary (${DESCRIPTOR_TERMS.join(', ')}) plus free words; compared trimmed and lower-cased, each kept once. Vocabulary terms count towards SAIC scores when judged against a target with ground-truth descriptors.`,
  '',
  'The work moves on with each submission: progress is the share of its analysts who have submitted; when all have, it completes and the results combine the submissions. The answer is your assignment (never the target, until the work is done).',
].join('\n');

/** Body of `POST …/{id}/results` (JSON; the same fields as multipart form fields). */
export class SubmissionDto {
  @ApiProperty({
    type: [String],
    maxItems: MAX_DESCRIPTORS,
    example: ['water', 'tall', 'metal', 'lattice'],
    description:
      'What the analyst perceived: vocabulary terms and free words (1–64 characters each)',
  })
  @IsArray({ message: 'must be an array of words' })
  @ArrayMaxSize(MAX_DESCRIPTORS, { message: `must hold at most ${MAX_DESCRIPTORS} descriptors` })
  @IsString({ each: true, message: 'must be words (strings)' })
  @Length(1, 64, { each: true, message: 'each must be 1 to 64 characters' })
  @SingleLineText({ each: true })
  descriptors!: string[];

  @ApiPropertyOptional({
    type: SubmittedCoordinatesDto,
    description: 'Where the analyst places the target',
  })
  @Optional()
  @IsObject({ message: 'must be an object with latitude and longitude' })
  @ValidateNested()
  @Type(() => SubmittedCoordinatesDto)
  coordinates?: SubmittedCoordinatesDto;

  @ApiPropertyOptional({ maxLength: MAX_NOTES, example: 'Cold wind, a sense of height, iron.' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(MAX_NOTES, { message: `must be at most ${MAX_NOTES} characters` })
  @FreeText()
  notes?: string;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1,
    example: 0.6,
    description:
      "The analyst's own confidence (kept with the submission; the results' confidence comes from track records and agreement)",
  })
  @Optional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, CONFIDENCE)
  @Min(0, CONFIDENCE)
  @Max(1, CONFIDENCE)
  confidence?: number;
}

export const SUBMISSION_EXAMPLES: RequestExamples = {
  submission: {
    summary: 'Descriptors, a place and notes',
    value: {
      descriptors: ['water', 'tall', 'metal', 'lattice'],
      coordinates: { latitude: 48.8584, longitude: 2.2945 },
      notes: 'Cold wind, a sense of height, iron.',
      confidence: 0.6,
    },
  },
};
