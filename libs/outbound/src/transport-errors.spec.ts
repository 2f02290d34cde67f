import { describe, expect, it } from 'vitest';
import { describeTlsFailure, describeTransportError } from './transport-errors.js';

const error = (code: string, message: string, cause?: unknown) =>
  Object.assign(new Error(message), { code, cause });

describe('describeTransportError', () => {
  it.each([
    [Object.assign(new Error('x'), { name: 'TimeoutError' }), 'no answer within 5 s'],
    [error('UND_ERR_HEADERS_TIMEOUT', 'x'), 'no answer within 5 s'],
    [error('UND_ERR_CONNECT_TIMEOUT', 'x'), 'connection timed out'],
    [error('ECONNREFUSED', 'x'), 'connection refused'],
    [error('ENOTFOUND', 'x'), 'the host does not resolve'],
    [
      error('EREFUSEDDEST', 'the destination is not allowed: only public addresses may be reached'),
      'the destination is not allowed: only public addresses may be reached',
    ],
    [
      error('CERT_HAS_EXPIRED', 'certificate has expired'),
      'TLS failure: CERT_HAS_EXPIRED (certificate has expired)',
    ],
    [error('UND_ERR_SOCKET', 'other side closed'), 'UND_ERR_SOCKET: other side closed'],
    [new Error('fetch failed', { cause: error('ECONNREFUSED', 'x') }), 'connection refused'],
  ])('describes %s', (failure, text) => {
    expect(describeTransportError(failure, 'no answer within 5 s')).toBe(text);
  });
});

describe('describeTlsFailure', () => {
  it('names a certificate nobody trusts, found in the causes, without Node’s advice', () => {
    const unknownCa = error(
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'unable to verify the first certificate; if the root CA is installed locally, try running Node.js with --use-system-ca',
    );
    expect(describeTlsFailure(new Error('fetch failed', { cause: unknownCa }))).toBe(
      'TLS failure: UNABLE_TO_VERIFY_LEAF_SIGNATURE (unable to verify the first certificate)',
    );
    expect(describeTlsFailure(error('ERR_TLS_CERT_ALTNAME_INVALID', 'bad name'))).toBe(
      'TLS failure: ERR_TLS_CERT_ALTNAME_INVALID (bad name)',
    );
  });

  it('is null for anything else', () => {
    expect(describeTlsFailure(error('ECONNRESET', 'reset'))).toBeNull();
    expect(describeTlsFailure('not an error')).toBeNull();
  });
});
