/** The `details` of an error envelope: the field at fault and what is wrong with it, and more. */
export interface ErrorDetails {
  field?: string;
  issue?: string;
  suggested_value?: unknown;
  [key: string]: unknown;
}

/**
 * An error the service answered, with everything its envelope carries
 * (`{"error": {"code", "message", "details", "request_id", "help_url"}}`).
 * Subclasses name the common cases so callers can `instanceof` them.
 */
export class SasError extends Error {
  override readonly name: string = 'SasError';

  constructor(
    message: string,
    /** HTTP status; 0 when no answer came (ConnectionError). */
    readonly status: number,
    /** The envelope's `code` (`INVALID_REQUEST`, `NOT_FOUND`, `RATE_LIMITED`, …). */
    readonly code: string,
    readonly details: ErrorDetails,
    /** `req_…`: quote it when asking for help. */
    readonly requestId: string | null,
    readonly helpUrl: string | null,
    readonly headers: Headers | null = null,
  ) {
    super(message);
  }
}

/** 400 / 422: the request is wrong; `details.field` names what. */
export class ValidationError extends SasError {
  override readonly name = 'ValidationError';
}
/** 401: no credential, or a bad, expired or revoked one. */
export class AuthenticationError extends SasError {
  override readonly name = 'AuthenticationError';
}
/** 403: the credential lacks a scope (`details.required_scopes`) or the caller may not do this. */
export class PermissionError extends SasError {
  override readonly name = 'PermissionError';
}
/** 404: no such resource in your organisation and mode. */
export class NotFoundError extends SasError {
  override readonly name = 'NotFoundError';
}
/** 409: the resource's state forbids it, or an Idempotency-Key was reused with another request. */
export class ConflictError extends SasError {
  override readonly name = 'ConflictError';
}
/** 429: a rate limit or quota; the SDK already waited and retried as `maxRetries` allowed. */
export class RateLimitError extends SasError {
  override readonly name = 'RateLimitError';
}
/** 5xx: the service failed; retried as `maxRetries` allowed. */
export class ServerError extends SasError {
  override readonly name = 'ServerError';
}
/** No answer: the network failed or the request timed out; retried as `maxRetries` allowed. */
export class ConnectionError extends SasError {
  override readonly name = 'ConnectionError';
}

interface Envelope {
  error?: {
    code?: unknown;
    message?: unknown;
    details?: unknown;
    request_id?: unknown;
    help_url?: unknown;
  };
}

/** The typed error of an answer that was not a success. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): SasError {
  const error = (body as Envelope | null)?.error ?? {};
  const code = typeof error.code === 'string' ? error.code : `HTTP_${status}`;
  const message =
    typeof error.message === 'string' ? error.message : `The service answered ${status}`;
  const details =
    error.details !== null && typeof error.details === 'object'
      ? (error.details as ErrorDetails)
      : {};
  const requestId =
    typeof error.request_id === 'string' ? error.request_id : headers.get('x-request-id');
  const helpUrl = typeof error.help_url === 'string' ? error.help_url : null;
  const Kind = errorClassFor(status);
  return new Kind(message, status, code, details, requestId, helpUrl, headers);
}

function errorClassFor(status: number): typeof SasError {
  if (status === 400 || status === 422) return ValidationError;
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return ServerError;
  return SasError;
}
