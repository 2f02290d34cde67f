import { describe, expect, it } from 'vitest';
import { ldapLibrary } from '../libraries.js';
import { LdapSignInError, toLdapSignInError } from './ldap-errors.js';

// The errors of the ldapts the code loads (libraries.ts): the ES module build's are other classes.
const { BusyError, InvalidCredentialsError, NoSuchObjectError } = ldapLibrary();

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('toLdapSignInError', () => {
  it('reads a refused bind as a wrong password for users, a bad setting for the service', () => {
    expect(toLdapSignInError(new InvalidCredentialsError(), 'user bind').code).toBe(
      'invalid_credentials',
    );
    expect(toLdapSignInError(new InvalidCredentialsError(), 'service bind')).toMatchObject({
      code: 'misconfigured',
      message: expect.stringContaining('bind_dn'),
    });
  });

  it.each([
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_failed'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls_failed'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls_failed'],
    ['CERT_HAS_EXPIRED', 'tls_failed'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_failed'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls_failed'],
    ['ECONNREFUSED', 'directory_unavailable'],
    ['ECONNRESET', 'directory_unavailable'],
  ])('maps the socket error %s to %s', (code, expected) => {
    expect(toLdapSignInError(withCode(code), 'connect').code).toBe(expected);
  });

  it('maps result codes: missing base → misconfigured, busy and timeouts → unavailable', () => {
    expect(toLdapSignInError(new NoSuchObjectError(), 'search')).toMatchObject({
      code: 'misconfigured',
      message: expect.stringContaining('base DN'),
    });
    expect(toLdapSignInError(new BusyError(), 'search').code).toBe('directory_unavailable');
    expect(
      toLdapSignInError(new Error('SearchRequest: Operation timed out'), 'search'),
    ).toMatchObject({ code: 'directory_unavailable', message: expect.stringContaining('in time') });
  });

  it('keeps a LdapSignInError as it is', () => {
    const error = new LdapSignInError('ambiguous_user', 'two');
    expect(toLdapSignInError(error, 'search')).toBe(error);
  });
});
