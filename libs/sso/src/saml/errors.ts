/** Why a SAML sign-in was refused. The message never carries the XML: it may hold personal data. */
export const SAML_SIGN_IN_ERROR_CODES = [
  'invalid_response',
  'signature_invalid',
  'replayed',
  'expired',
  'wrong_audience',
  'wrong_destination',
  'unsolicited',
  'in_response_to_unknown',
  'too_large',
  'misconfigured',
] as const;

export type SamlSignInErrorCode = (typeof SAML_SIGN_IN_ERROR_CODES)[number];

export class SamlSignInError extends Error {
  override readonly name = 'SamlSignInError';

  constructor(
    readonly code: SamlSignInErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A connection's SAML configuration that cannot be used; `field` names the API field at fault. */
export class SamlConfigError extends Error {
  override readonly name = 'SamlConfigError';

  constructor(
    readonly field: string,
    readonly issue: string,
  ) {
    super(`${field}: ${issue}`);
  }
}
