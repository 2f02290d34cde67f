import { SamlStatusError } from '@node-saml/node-saml';
import { describe, expect, it } from 'vitest';
import { signInFailure } from './failure-reasons.js';

describe('signInFailure', () => {
  it.each([
    ['InResponseTo is missing from response', 'unsolicited'],
    ['InResponseTo is not valid', 'in_response_to_unknown'],
    ['SubjectInResponseTo is not valid', 'in_response_to_unknown'],
    ['Invalid signature', 'signature_invalid'],
    ['Invalid document signature', 'signature_invalid'],
    ['Invalid signature: multiple assertions', 'signature_invalid'],
    ['Cannot obtain assertion from signed data', 'signature_invalid'],
    ['SAML assertion expired: clocks skewed too much', 'expired'],
    ['SAML assertion not yet valid', 'expired'],
    ['No valid subject confirmation found among those available in the SAML assertion', 'expired'],
    ['SAML assertion audience mismatch. Expected: a Received: b', 'wrong_audience'],
    ['SAML assertion has no AudienceRestriction', 'wrong_audience'],
    ['No decryption key for encrypted SAML response', 'misconfigured'],
    ['Missing SAML assertion', 'invalid_response'],
  ])('maps "%s" to %s', (message, code) => {
    const failure = signInFailure(new Error(message));
    expect(failure.code).toBe(code);
    expect(failure.message).not.toContain('Received');
  });

  it('keeps an IdP error status (and its XML) out of the message and the cause', () => {
    const failure = signInFailure(
      new SamlStatusError('SAML provider returned Responder error: x', '<Status>…</Status>'),
    );
    expect(failure.code).toBe('invalid_response');
    expect(failure.cause).toBeUndefined();
  });
});
