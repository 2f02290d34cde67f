import { ApiResponse } from '@nestjs/swagger';
import { REQUEST_LIMITS_RESPONSE } from '../http/auth.decorator.js';

/** The 429 of every route that starts sessions: request limits, and the plan's concurrent sessions. */
export const ApiConcurrentSessionsLimit = () =>
  ApiResponse({
    ...REQUEST_LIMITS_RESPONSE,
    description: `${REQUEST_LIMITS_RESPONSE.description} Also when the organisation already runs as many sessions (initiated or in progress, per mode) as its plan allows — free 5, pro 50, enterprise 500 or as agreed: then \`details\` names \`concurrent_sessions\`, the \`limit\` and the \`plan\`, \`Retry-After\` says when the first running session is expected to finish, and nothing of the request was created.`,
  });
