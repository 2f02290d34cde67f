import type { Mode } from './tenancy.js';

/**
 * Error codes of the spec (Errors part) plus the few the spec leaves open.
 * Features throw AppError with a code; the HTTP layer maps codes to statuses
 * and the envelope in one exhaustive switch.
 */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UPGRADE_REQUIRED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetails {
  field?: string;
  issue?: string;
  suggested_value?: unknown;
  [key: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    /** Response headers the error implies (WWW-Authenticate, Allow, Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  static invalid(field: string, issue: string, suggestedValue?: unknown): AppError {
    const details: ErrorDetails = { field, issue };
    if (suggestedValue !== undefined) details.suggested_value = suggestedValue;
    return new AppError('INVALID_REQUEST', `Invalid value for ${field}: ${issue}`, details);
  }

  /** `field` names where the id was given, when not in the path as `id`. */
  static notFound(resource: string, id: string, field = 'id'): AppError {
    const error = new AppError('NOT_FOUND', `No ${resource} with id ${id}`, {
      field,
      issue: 'not found',
    });
    error.missing = { resource, id };
    return error;
  }

  /**
   * What a NOT_FOUND was looking for: the HTTP layer asks whether the
   * caller's organisation holds it in the other mode, to say so.
   */
  missing?: { resource: string; id: string };

  /**
   * This NOT_FOUND (made by notFound), saying the id exists in the
   * organisation's mode `heldIn`, not the credential's (as Stripe's does).
   */
  inOtherMode(credential: Mode, heldIn: Mode): AppError {
    const { resource, id } = this.missing!;
    return new AppError(
      'NOT_FOUND',
      `No ${resource} with id ${id} in ${credential} mode: it exists in ${heldIn} mode, and this credential is ${credential}-mode`,
      { ...this.details, issue: `exists in ${heldIn} mode; this credential is ${credential}-mode` },
      this.headers,
    );
  }

  /** `field` names where the credential was looked for: a header (`Authorization`, `X-API-Key`) or parameter. */
  static unauthorized(issue: string, field = 'Authorization'): AppError {
    return new AppError(
      'UNAUTHORIZED',
      'Invalid or missing credentials',
      { field, issue },
      {
        'WWW-Authenticate': `Bearer error="invalid_token", error_description="${issue.replace(/"/g, "'")}"`,
      },
    );
  }

  static forbidden(missingScopes: string[]): AppError {
    return new AppError(
      'FORBIDDEN',
      'Insufficient permissions',
      {
        field: 'scope',
        issue: `requires scope ${missingScopes.join(' ')}`,
        required_scopes: missingScopes,
      },
      {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${missingScopes.join(' ')}"`,
      },
    );
  }
}

export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'INVALID_REQUEST':
    case 'VALIDATION_ERROR':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'METHOD_NOT_ALLOWED':
      return 405;
    case 'CONFLICT':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'UPGRADE_REQUIRED':
      return 426;
    case 'RATE_LIMITED':
      return 429;
    case 'INTERNAL_ERROR':
      return 500;
    case 'SERVICE_UNAVAILABLE':
      return 503;
  }
}

/** What each code means, for the help page that v2 errors link to. */
export const ERROR_HELP: Record<ErrorCode, string> = {
  INVALID_REQUEST:
    'A parameter is missing, of the wrong type, out of range, or not allowed. `details.field` names it.',
  VALIDATION_ERROR:
    'Version 2 form of INVALID_REQUEST: also carries `details.suggested_value` where one can be computed.',
  UNAUTHORIZED:
    'The credential is missing, malformed, expired or revoked; `details.field` names where it was looked for (`Authorization`, `X-API-Key`). Get a new token or use a valid API key.',
  FORBIDDEN:
    'The credential is valid but may not do this: `details.field` says why — `scope` (`details.required_scopes` lists the scopes it lacks), `mode` (a live-mode credential is needed), `role` (a person needs the admin role) or `Authorization` (another kind of credential is needed).',
  NOT_FOUND: 'No such resource in your organisation and mode, or no such route.',
  METHOD_NOT_ALLOWED:
    'The path exists but not with this HTTP method; the `Allow` header lists the methods it has.',
  CONFLICT: 'The request conflicts with the current state of the resource.',
  PAYLOAD_TOO_LARGE: 'The request body is larger than the service accepts.',
  UNSUPPORTED_MEDIA_TYPE:
    'The body is not of a content type this endpoint accepts (JSON, or form-encoded for /oauth2/token).',
  UPGRADE_REQUIRED:
    'The path is a WebSocket: connect with a WebSocket client (`Upgrade: websocket`), not a plain HTTP request.',
  RATE_LIMITED: 'Too many requests; wait for the number of seconds in `Retry-After`.',
  INTERNAL_ERROR:
    'Something failed on our side. Retry later and quote the request id if it persists.',
  SERVICE_UNAVAILABLE: 'A dependency is temporarily unavailable. Retry later.',
};
