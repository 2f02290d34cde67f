import { describe, expect, it } from 'vitest';
import { firstRdnType, firstRdnValue, InvalidDnError, parseDn } from './distinguished-name.js';

describe('parseDn', () => {
  it('splits RDNs and multi-valued RDNs', () => {
    expect(parseDn('cn=Ada Lovelace+uid=ada, ou=people,dc=example;dc=com')).toEqual([
      [
        { type: 'cn', value: 'Ada Lovelace' },
        { type: 'uid', value: 'ada' },
      ],
      [{ type: 'ou', value: 'people' }],
      [{ type: 'dc', value: 'example' }],
      [{ type: 'dc', value: 'com' }],
    ]);
    expect(parseDn('')).toEqual([]);
  });

  it('unescapes specials, hex pairs (UTF-8) and keeps #hex values', () => {
    expect(parseDn('cn=Smith\\, John\\+1,o=Caf\\C3\\A9')).toEqual([
      [{ type: 'cn', value: 'Smith, John+1' }],
      [{ type: 'o', value: 'Café' }],
    ]);
    expect(parseDn('1.3.6.1.4.1.1466.0=#04024869,cn=😀 emoji')).toEqual([
      [{ type: '1.3.6.1.4.1.1466.0', value: '#04024869' }],
      [{ type: 'cn', value: '😀 emoji' }],
    ]);
    expect(parseDn('cn=o(brien)*,ou=people')[0]).toEqual([{ type: 'cn', value: 'o(brien)*' }]);
  });

  it.each([
    'cn',
    'cn=a,,dc=b',
    '=a',
    'c n=a',
    'cn=a"b',
    'cn=a<b',
    'cn=a\\',
    'cn=a\\q',
    'cn=\\C3',
    'cn=#zz',
    'cn=a,',
  ])('refuses %j', (dn) => {
    expect(() => parseDn(dn)).toThrow(InvalidDnError);
  });
});

describe('first RDN', () => {
  it('gives the most specific value and type, or null', () => {
    expect(firstRdnValue('CN=Engineers,OU=Groups,DC=corp')).toBe('Engineers');
    expect(firstRdnType('CN=Engineers,OU=Groups,DC=corp')).toBe('cn');
    expect(firstRdnValue('not a dn')).toBeNull();
    expect(firstRdnType('')).toBeNull();
  });
});
