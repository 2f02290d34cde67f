import { ldapLibrary } from '../libraries.js';

export type LdapSignInErrorCode =
  | 'invalid_credentials'
  | 'user_not_found'
  | 'ambiguous_user'
  | 'directory_unavailable'
  | 'tls_failed'
  | 'misconfigured';

/**
 * Why a directory sign-in (or check) failed. The code is for logs and callers; the
 * message is for people and never carries a password. `cause` keeps the ldapts or
 * socket error for logs.
 */
export class LdapSignInError extends Error {
  constructor(
    readonly code: LdapSignInErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LdapSignInError';
  }
}

/** LDAP result codes (RFC 4511) that mean "try later", not "fix the settings". */
const TRANSIENT_RESULT_CODES = new Set([
  3, // timeLimitExceeded
  11, // adminLimitExceeded
  51, // busy
  52, // unavailable
  53, // unwillingToPerform
]);
const INVALID_CREDENTIALS = 49;
const NO_SUCH_OBJECT = 32;

/**
 * TLS failures as Node and OpenSSL report them: certificate verification codes,
 * hostname mismatch, handshake and protocol errors.
 */
function isTlsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    /CERT|SIGNATURE|ISSUER|SELF_SIGNED|VERIFY/.test(code)
  );
}

/** ldapts' "Operation timed out" / "Connection timeout", and our own deadlines. */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && /timed? ?out/i.test(error.message);
}

/**
 * Maps what ldapts, the socket or TLS threw during `operation` to a LdapSignInError.
 * `operation` says what we were doing, so the message can name it ("binding as the
 * service account") and a refused service bind reads as a configuration problem.
 */
export function toLdapSignInError(
  error: unknown,
  operation: 'service bind' | 'user bind' | 'search' | 'connect',
): LdapSignInError {
  if (error instanceof LdapSignInError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  if ((error as { code?: unknown } | null)?.code === 'EREFUSEDDEST') {
    return new LdapSignInError(
      'misconfigured',
      `the directory's address is refused: ${detail} (the operator may allow it with OUTBOUND_PRIVATE_ALLOWLIST)`,
      { cause: error },
    );
  }
  if (isTlsError(error)) {
    return new LdapSignInError('tls_failed', `TLS with the directory failed: ${detail}`, {
      cause: error,
    });
  }
  if (error instanceof ldapLibrary().ResultCodeError) {
    if (error.code === INVALID_CREDENTIALS) {
      return operation === 'user bind'
        ? new LdapSignInError('invalid_credentials', 'the directory refused the password', {
            cause: error,
          })
        : new LdapSignInError(
            'misconfigured',
            'the directory refused the service account (bind_dn / bind_password)',
            { cause: error },
          );
    }
    if (!TRANSIENT_RESULT_CODES.has(error.code)) {
      const hint = error.code === NO_SUCH_OBJECT ? ' (does the base DN exist?)' : '';
      return new LdapSignInError('misconfigured', `${operation} failed: ${detail}${hint}`, {
        cause: error,
      });
    }
  }
  const reason = isTimeout(error) ? 'did not answer in time' : 'could not be reached';
  return new LdapSignInError(
    'directory_unavailable',
    `the directory ${reason} (${operation}): ${detail}`,
    { cause: error },
  );
}
