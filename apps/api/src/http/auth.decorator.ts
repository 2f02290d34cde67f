import {
  applyDecorators,
  createParamDecorator,
  SetMetadata,
  type ExecutionContext,
} from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { Principal, ScopeName } from '#common';
import { requireMember, type Member } from '#auth';
import type { ScimCaller } from '#scim';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';
import type { ApiRequest } from './request-context.js';

export const AUTH_METADATA = 'sas:auth';

export interface AuthRequirement {
  /** Scopes the credential must hold, all of them; none: any valid credential (say so on purpose). */
  scopes: ScopeName[];
  /** Only OAuth access tokens, not API keys (e.g. creating API keys). */
  accessTokenOnly?: boolean;
  /**
   * Analysts and judges may call it with their own token (their assignments,
   * judging tasks, submissions, profile). Every other route is for admins and
   * for the organisation's clients and API keys: a person without the
   * `admin` role gets 403 there, so the blind never see the targets.
   */
  members?: boolean;
  /**
   * People, identity and the organisation itself exist once for both modes, so
   * only a live-mode credential may change them: a test-mode one gets 403
   * before the handler runs (the mode matrix test calls every write route
   * with one). Without it, a route's writes must stay inside the caller's mode.
   */
  liveOnly?: boolean;
  /**
   * The operator's routes over every organisation: the `{organization_id}`
   * of the path may name another organisation than the caller's (the service
   * checks the caller is the operator). Everywhere else the guard answers
   * 404 to another organisation's id in the path, as to any tenant's resource.
   */
  anyOrganization?: boolean;
}

export type AuthDeclaration = AuthRequirement | 'public' | 'scim';

/** Declares the scopes a route needs; sets the guard's metadata and the OpenAPI security together. */
export function Auth(requirement: AuthRequirement) {
  return applyDecorators(
    SetMetadata(AUTH_METADATA, requirement),
    ApiBearerAuth('bearer'),
    ApiSecurity('oauth2', requirement.scopes),
    ...(requirement.accessTokenOnly ? [] : [ApiSecurity('api_key')]),
    ApiExtension('x-required-scopes', requirement.scopes),
    ...(requirement.liveOnly ? [ApiExtension('x-live-only', true)] : []),
    ...(requirement.anyOrganization ? [ApiExtension('x-any-organization', true)] : []),
    ApiResponse({
      status: 401,
      description:
        'Missing, invalid or expired credential; `details.field` names where it was looked for (`Authorization` or `X-API-Key`)',
      type: ErrorEnvelopeDto,
    }),
    ApiResponse({
      status: 403,
      description:
        requirement.scopes.length === 0
          ? 'No scope is needed: any valid credential may call it. Forbidden only as every route is (for example a live-mode credential at the sandbox base URL)'
          : requirement.liveOnly
            ? `Requires scope ${requirement.scopes.join(' ')} (else \`details.field\` is \`scope\`, with \`required_scopes\`) and a live-mode credential (else \`mode\`): people, sign-in connections and the organisation are changed in live mode only`
            : `Requires scope ${requirement.scopes.join(' ')} (else \`details.field\` is \`scope\`, with \`required_scopes\`)`,
      type: ErrorEnvelopeDto,
    }),
    ApiResponse(REQUEST_LIMITS_RESPONSE),
    ApiResponse({
      status: 503,
      description:
        'SERVICE_UNAVAILABLE: request limits cannot be counted right now and the deployment refuses uncounted requests (RATE_LIMIT_ON_REDIS_FAILURE=deny); see `Retry-After`',
      type: ErrorEnvelopeDto,
    }),
  );
}

/**
 * The headers of request limits. Every response carries the X-RateLimit-*
 * and RateLimit ones (errors too, public endpoints too) while limits are on
 * and Redis can count: documentRequestLimits says so on every response.
 */
export const LIMIT_HEADERS = {
  'Retry-After': {
    description: 'Seconds until the exhausted window starts afresh',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Limit': {
    description:
      "Requests allowed in the window this request counted in. A request whose credential is valid counts against its organisation's limits in the credential's mode, and this is the window closest to exhaustion among the plan's requests per minute and the tier's per hour and per day. Any other request (no credential or an invalid one: public endpoints, 401s, unknown routes) counts against its source address: ANONYMOUS_RATE_PER_ADDRESS a minute (600 by default)",
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that window after this one (0 once it is used up)',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'When that window starts afresh (Unix time, seconds)',
    schema: { type: 'integer' },
  },
  'RateLimit-Policy': {
    description: 'Every window: `"minute";q=60;w=60, "hour";q=100;w=3600, …`',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'The closest window: `"minute";r=59;t=42`',
    schema: { type: 'string' },
  },
};

/** The 429 every authenticated route may answer; routes that start sessions add their concurrency limit. */
export const REQUEST_LIMITS_RESPONSE = {
  status: 429,
  description:
    "RATE_LIMITED: the organisation's requests per minute (by plan) or its hourly or daily quota (by tier) is used up for this mode; `details.field` names it (`requests_per_minute`, `requests_per_hour`, `requests_per_day`) with `limit` and `window`. A request without a valid credential counts against its source address instead (`requests_per_minute_per_address`). Every response carries the X-RateLimit-* and RateLimit headers.",
  type: ErrorEnvelopeDto,
  headers: LIMIT_HEADERS,
};

/** Declares a route open to anyone; routes with neither this nor @Auth are refused. */
export function Public() {
  return SetMetadata(AUTH_METADATA, 'public');
}

/**
 * A route of the SCIM service (/scim/v2): its caller is an organisation's
 * SCIM token (`Authorization: Bearer sas_scim_…`), which reaches nothing else.
 */
export function ScimAuth() {
  return SetMetadata(AUTH_METADATA, 'scim');
}

/** The SCIM token's organisation, as the guard found it. */
export const CurrentScimCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ScimCaller => {
    const caller = context.switchToHttp().getRequest<ApiRequest>().scim;
    if (!caller) throw new Error('CurrentScimCaller used on a route without @ScimAuth');
    return caller;
  },
);

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<ApiRequest>().principal;
    if (!principal) throw new Error('CurrentPrincipal used on a route without @Auth');
    return principal;
  },
);

/**
 * The person calling with their own access token (authorization code flow);
 * 403 for a client's token or an API key — such routes act for a person.
 */
export const CurrentMember = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Member =>
    requireMember(context.switchToHttp().getRequest<ApiRequest>().member),
);

/**
 * The person calling, or undefined for an API key or a client: for routes
 * that answer a malformed request or a wrong resource before asking who
 * calls (`requireMember`).
 */
export const OptionalMember = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Member | undefined =>
    context.switchToHttp().getRequest<ApiRequest>().member,
);

export const RequestId = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string =>
    context.switchToHttp().getRequest<ApiRequest>().id,
);
