import { applyDecorators, HttpCode } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { ScopeName } from '#common';
import { Auth } from '../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../http/error-envelope.dto.js';
import { ResourceParam } from '../http/resource-param.decorator.js';
import { AssignmentDto } from './v2/assignment-v2.dto.js';
import { MAX_SKETCH_BYTES, MAX_SKETCHES } from '#analysts';
import { SUBMISSION_DESCRIPTION, SUBMISSION_EXAMPLES, SubmissionDto } from './submission.dto.js';

/**
 * Everything a results route (`POST …/{id}/results`) declares but its path:
 * 200, the person's own token with `scope` (analysts may call it), the body
 * (JSON or multipart), the work's path parameter, the answer (the analyst's
 * assignment) and its 409s. `about` tells what this kind's submissions mean.
 */
export function ApiSubmitResults(work: {
  noun: string;
  param: string;
  example: string;
  scope: ScopeName;
  summary: string;
  about: string;
}) {
  return applyDecorators(
    HttpCode(200),
    Auth({ scopes: [work.scope], members: true }),
    ApiOperation({
      summary: work.summary,
      description: `${work.about} ${SUBMISSION_DESCRIPTION}\n\nWork of the \`simulated\` engine makes its own results: 404 to a person (nobody is assigned to it, so it is answered as an unknown id), 409 naming \`engine\` to a credential that is no person.`,
      requestBody: submissionRequestBody(),
    }),
    ApiExtraModels(SubmissionDto),
    ResourceParam(work.param, work.example, work.noun),
    ApiOkResponse({ type: AssignmentDto, description: 'Your assignment with your submission' }),
    ApiResponse({
      status: 409,
      description: `The ${work.noun} takes no submissions (engine; to a credential that is no person), or its deadline has passed`,
      type: ErrorEnvelopeDto,
    }),
  );
}

/** The results routes' body: JSON, or multipart/form-data with the sketches as files. */
function submissionRequestBody() {
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
