import { ApiResponse } from '@nestjs/swagger';
import { REQUEST_LIMITS_RESPONSE } from '../http/auth.decorator.js';

/** The 429 of every route that queues analyses: request limits, and the plan's concurrent analyses. */
export const ApiConcurrentAnalysesLimit = () =>
  ApiResponse({
    ...REQUEST_LIMITS_RESPONSE,
    description: `${REQUEST_LIMITS_RESPONSE.description} Also when the organisation already has as many analyses queued or processing (per mode) as its plan allows concurrent sessions — free 5, pro 50, enterprise 500 or as agreed; analyses count in a pool of their own, apart from sessions: then \`details\` names \`concurrent_analyses\`, the \`limit\` and the \`plan\`, \`Retry-After\` says when the first one is expected to finish, and nothing of the request was created.`,
  });
