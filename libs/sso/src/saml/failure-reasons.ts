import { samlLibrary } from '../libraries.js';
import { SamlSignInError, type SamlSignInErrorCode } from './errors.js';

/**
 * node-saml throws plain Errors; their messages are the only way to tell why.
 * Our message is fixed per reason so that nothing from the response (an
 * audience, a status message) reaches a page or a log line by way of it.
 */
const REASONS: { pattern: RegExp; code: SamlSignInErrorCode; message: string }[] = [
  {
    pattern: /InResponseTo is missing/,
    code: 'unsolicited',
    message: 'the response answers no request of ours and IdP-initiated sign-in is off',
  },
  {
    pattern: /InResponseTo/,
    code: 'in_response_to_unknown',
    message: 'the response answers a request that is unknown, expired or already answered',
  },
  {
    pattern: /decryption key/i,
    code: 'misconfigured',
    message: 'the assertion is encrypted and the connection has no decryption key',
  },
  {
    pattern: /signature|signed data|multiple assertions|ID cannot refer|Referenced node/i,
    code: 'signature_invalid',
    message: 'the response carries no valid signature of the connection’s IdP',
  },
  {
    pattern: /expired|not yet valid|subject confirmation|too old/i,
    code: 'expired',
    message: 'the assertion is expired or not yet valid',
  },
  {
    pattern: /audience/i,
    code: 'wrong_audience',
    message: 'the assertion is meant for another service provider',
  },
];

export function signInFailure(error: unknown): SamlSignInError {
  if (error instanceof SamlSignInError) return error;
  // A status error's details hold the IdP's XML: kept out of the cause too.
  if (error instanceof samlLibrary().SamlStatusError) {
    return new SamlSignInError('invalid_response', 'the IdP answered with an error status');
  }
  const text = error instanceof Error ? error.message : String(error);
  const reason = REASONS.find(({ pattern }) => pattern.test(text));
  return reason
    ? new SamlSignInError(reason.code, reason.message, { cause: error })
    : new SamlSignInError('invalid_response', 'the response could not be validated', {
        cause: error,
      });
}
