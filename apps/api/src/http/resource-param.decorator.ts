import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiResponse } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';

/** A route addressing one tenant resource by id: documents the id and its 404 together. */
export function ResourceParam(name: string, example: string, resource: string) {
  return applyDecorators(
    ApiParam({ name, example, type: String }),
    ApiResponse({
      status: 404,
      description: `No such ${resource} in your organisation and mode`,
      type: ErrorEnvelopeDto,
    }),
  );
}
