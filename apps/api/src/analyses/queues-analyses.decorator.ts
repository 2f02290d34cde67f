import { applyDecorators, HttpCode, type Type } from '@nestjs/common';
import { ApiCreatedResponse, ApiResponse } from '@nestjs/swagger';
import { Scope } from '#common';
import { Auth, REQUEST_LIMITS_RESPONSE } from '../http/auth.decorator.js';
import {
  ApiJsonBody,
  ApiJsonBodyRefusals,
  type RequestExamples,
} from '../http/request-examples.js';

/** The 429 of every route that queues analyses: request limits, and the plan's concurrent analyses. */
const ApiConcurrentAnalysesLimit = () =>
  ApiResponse({
    ...REQUEST_LIMITS_RESPONSE,
    description: `${REQUEST_LIMITS_RESPONSE.description} Also when the organisation already has as many analyses queued or processing (per mode) as its plan allows concurrent sessions — free 5, pro 50, enterprise 500 or as agreed; analyses count in a pool of their own, apart from sessions: then \`details\` names \`concurrent_analyses\`, the \`limit\` and the \`plan\`, \`Retry-After\` says when the first one is expected to finish, and nothing of the request was created.`,
  });

/**
 * Everything a route that queues analyses declares but its path and
 * operation: 201 with `created`, the write scope, the JSON body with its
 * examples and refusals, and the plan's limit on concurrent analyses.
 */
export function ApiQueuesAnalyses(body: Type, examples: RequestExamples, created: Type) {
  return applyDecorators(
    HttpCode(201),
    Auth({ scopes: [Scope.SessionsWrite] }),
    // After Auth: this 429 replaces its plain one.
    ApiConcurrentAnalysesLimit(),
    ApiJsonBody(body, examples),
    ApiCreatedResponse({ type: created }),
    ApiJsonBodyRefusals(),
  );
}
