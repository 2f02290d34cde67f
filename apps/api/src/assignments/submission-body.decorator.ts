import { getSchemaPath } from '@nestjs/swagger';
import { MAX_SKETCH_BYTES, MAX_SKETCHES } from '#analysts';
import { SUBMISSION_EXAMPLES, SubmissionDto } from './submission.dto.js';

/**
 * The results endpoints' body, for their ApiOperation's `requestBody`: JSON, or
 * multipart/form-data with the sketches as files. The controller registers
 * SubmissionDto with ApiExtraModels.
 */
export function submissionRequestBody() {
  return {
    required: true,
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(SubmissionDto) },
        examples: SUBMISSION_EXAMPLES,
      },
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['descriptors'],
          properties: {
            descriptors: {
              type: 'array',
              items: { type: 'string', minLength: 1, maxLength: 64 },
              description: 'Repeat the field, or give one comma-separated value',
            },
            latitude: { type: 'number', minimum: -90, maximum: 90 },
            longitude: { type: 'number', minimum: -180, maximum: 180 },
            notes: { type: 'string' },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
            sketches: {
              type: 'array',
              maxItems: MAX_SKETCHES,
              items: { type: 'string', format: 'binary' },
              description: `PNG, JPEG or SVG, at most ${MAX_SKETCH_BYTES / 1024 ** 2} MiB each`,
            },
          },
        },
      },
    },
  };
}
