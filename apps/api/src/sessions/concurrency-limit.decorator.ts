import { ApiResponse } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from '../http/error-envelope.dto.js';

/** The 429 of every route that starts sessions: the plan's concurrent sessions are all running. */
export const ApiConcurrentSessionsLimit = () =>
  ApiResponse({
    status: 429,
    description:
      'RATE_LIMITED: the organisation already runs as many sessions (initiated or in progress, per mode) as its plan allows — free 5, pro 50, enterprise 500 or as agreed. `details` names `concurrent_sessions`, the `limit` and the `plan`; `Retry-After` says when the first running session is expected to finish. Nothing of the request was created.',
    type: ErrorEnvelopeDto,
    headers: {
      'Retry-After': {
        description: 'Seconds until a place is expected to free up',
        schema: { type: 'integer' },
      },
    },
  });
