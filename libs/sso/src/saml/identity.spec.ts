import type { Profile } from '@node-saml/node-saml';
import { describe, expect, it } from 'vitest';
import { SamlSignInError } from './errors.js';
import { identityOf } from './identity.js';

const ASSERTION = { id: '_a', notOnOrAfter: new Date('2030-01-01T00:00:00Z') };
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

function profile(fields: Partial<Profile> & { attributes?: Record<string, unknown> }): Profile {
  return { issuer: 'https://idp.test', nameID: '', nameIDFormat: '', ...fields } as Profile;
}

describe('identityOf', () => {
  it('takes the email from an emailAddress NameID', () => {
    const identity = identityOf(
      profile({ nameID: 'alice@corp.test', nameIDFormat: EMAIL_FORMAT, inResponseTo: '_req' }),
      ASSERTION,
    );
    expect(identity).toMatchObject({
      nameId: 'alice@corp.test',
      email: 'alice@corp.test',
      name: null,
      groups: [],
      assertionId: '_a',
      inResponseTo: '_req',
      notOnOrAfter: ASSERTION.notOnOrAfter,
    });
  });

  it('takes the email, name and groups from Entra ID style claims when the NameID is opaque', () => {
    const identity = identityOf(
      profile({
        nameID: 'k2Jd9-opaque',
        nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
        attributes: {
          'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': 'bob@corp.test',
          'http://schemas.microsoft.com/identity/claims/displayname': 'Bob',
          'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups': ['g1', 'g2'],
          memberOf: ['g2', 'cn=g3,dc=corp'],
        },
      }),
      ASSERTION,
    );
    expect(identity).toMatchObject({
      nameId: 'k2Jd9-opaque',
      email: 'bob@corp.test',
      name: 'Bob',
      groups: ['g1', 'g2', 'cn=g3,dc=corp'],
      inResponseTo: null,
    });
  });

  it('matches attribute names without regard to case and keeps only string values', () => {
    const identity = identityOf(
      profile({
        nameID: 'x',
        attributes: { Mail: 'carol@corp.test', Groups: [{ nested: 1 }, 'ops'] },
      }),
      ASSERTION,
    );
    expect(identity.email).toBe('carol@corp.test');
    expect(identity.groups).toEqual(['ops']);
    expect(identity.attributes).toEqual({ Mail: ['carol@corp.test'], Groups: ['ops'] });
  });

  it('puts a name together from given name and surname when no display name is sent', () => {
    const attributes = {
      'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname': 'Dana',
      'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname': 'Scully',
    };
    const identity = identityOf(
      profile({ nameID: 'dana@corp.test', nameIDFormat: EMAIL_FORMAT, attributes }),
      ASSERTION,
    );
    expect(identity.name).toBe('Dana Scully');
  });

  it('refuses an assertion without a NameID or an email address', () => {
    expect(() => identityOf(profile({ nameID: '' }), ASSERTION)).toThrow(SamlSignInError);
    expect(() => identityOf(profile({ nameID: 'opaque' }), ASSERTION)).toThrow(/no email/);
    expect(() =>
      identityOf(profile({ nameID: 'not an email', nameIDFormat: EMAIL_FORMAT }), ASSERTION),
    ).toThrow(/no email/);
  });
});
