import type { Entry, SearchOptions } from 'ldapts';
import { describe, expect, it } from 'vitest';
import { ldapLibrary } from '../libraries.js';
import {
  NESTED_GROUP_MAX_COUNT,
  NESTED_GROUP_MAX_DEPTH,
  readGroups,
  type GroupSource,
} from './ldap-groups.js';
import { ldapSettings, type LdapSettings } from './ldap-settings.js';

// The errors of the ldapts the code loads (libraries.ts): the ES module build's are other classes.
const { NoSuchObjectError } = ldapLibrary();

const USER = 'uid=ada,ou=people,dc=corp';
const group = (name: string) => `cn=${name},ou=groups,dc=corp`;

/**
 * A directory of groups in memory: `parents` maps a member DN (user or group) to the
 * groups it belongs to. Answers the two searches readGroups makes: a group filter
 * `(member=<dn>)` under ou=groups, and a base read of one group (cn, memberOf).
 */
function fakeDirectory(parents: Record<string, string[]>, unreadable: string[] = []) {
  const searches: { base: string; options: SearchOptions }[] = [];
  const nameOf = (dn: string) => /^cn=([^,]+)/.exec(dn)![1]!;
  const search = async (base: string, options: SearchOptions): Promise<Entry[]> => {
    searches.push({ base, options });
    if (options.scope === 'base') {
      if (unreadable.includes(base)) throw new NoSuchObjectError();
      return [{ dn: base, cn: nameOf(base), memberOf: parents[base] ?? [] }];
    }
    const member = /\(member=(.*)\)$/
      .exec(String(options.filter))![1]!
      .replace(/\\([0-9a-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return (parents[member] ?? []).map((dn) => ({ dn, cn: nameOf(dn) }));
  };
  return { search, searches };
}

function source(
  search: GroupSource['search'],
  overrides: Partial<LdapSettings> = {},
  activeDirectory = false,
): GroupSource {
  const settings = ldapSettings({
    url: 'ldaps://ldap.corp',
    bindDn: 'cn=service,dc=corp',
    bindPassword: 'x',
    userBaseDn: 'ou=people,dc=corp',
    userFilter: '(uid={username})',
    ...overrides,
  });
  return { settings, search, activeDirectory, defaultSearchBase: 'dc=corp' };
}

const byFilter = { groupBaseDn: 'ou=groups,dc=corp', groupFilter: '(member={dn})' };

describe('readGroups', () => {
  const parents = {
    [USER]: [group('engineers'), group('a')],
    [group('engineers')]: [group('platform')],
    [group('a')]: [group('b')],
    [group('b')]: [group('a')], // a cycle
  };

  it.each([
    ['a group filter', byFilter],
    ['memberOf', {}],
  ])('walks nested groups through %s and ends cycles', async (_, groupSource) => {
    const directory = fakeDirectory(parents);
    const groups = await readGroups(
      source(directory.search, { ...groupSource, nestedGroups: true }),
      { dn: USER, memberOf: parents[USER]! },
    );
    expect(groups).toEqual(['engineers', 'a', 'platform', 'b']);
  });

  it('reads only direct groups without nested_groups, naming memberOf groups by their DN', async () => {
    const directory = fakeDirectory(parents);
    const groups = await readGroups(source(directory.search), {
      dn: USER,
      memberOf: parents[USER]!,
    });
    expect(groups).toEqual(['engineers', 'a']);
    expect(directory.searches).toEqual([]); // cn=… already names the group
  });

  it('names a group it cannot read by its first RDN', async () => {
    const directory = fakeDirectory(parents, [group('engineers')]);
    const groups = await readGroups(source(directory.search, { nestedGroups: true }), {
      dn: USER,
      memberOf: [group('engineers')],
    });
    expect(groups).toEqual(['engineers']);
  });

  it(`stops ${NESTED_GROUP_MAX_DEPTH} levels up a chain of groups`, async () => {
    const chain: Record<string, string[]> = { [USER]: [group('g0')] };
    for (let level = 0; level < 50; level++) chain[group(`g${level}`)] = [group(`g${level + 1}`)];
    const groups = await readGroups(
      source(fakeDirectory(chain).search, { ...byFilter, nestedGroups: true }),
      { dn: USER, memberOf: [] },
    );
    expect(groups).toHaveLength(NESTED_GROUP_MAX_DEPTH + 1);
    expect(groups.at(-1)).toBe(`g${NESTED_GROUP_MAX_DEPTH}`);
  });

  it(`stops after ${NESTED_GROUP_MAX_COUNT} groups`, async () => {
    const wide: Record<string, string[]> = {
      [USER]: Array.from({ length: 800 }, (_, i) => group(`direct${i}`)),
    };
    for (let i = 0; i < 800; i++) wide[group(`direct${i}`)] = [group(`parent${i}`)];
    const groups = await readGroups(
      source(fakeDirectory(wide).search, { ...byFilter, nestedGroups: true }),
      { dn: USER, memberOf: [] },
    );
    expect(groups).toHaveLength(NESTED_GROUP_MAX_COUNT);
  });

  it("uses Active Directory's in-chain rule instead of walking", async () => {
    const searches: { base: string; options: SearchOptions }[] = [];
    const search = async (base: string, options: SearchOptions) => {
      searches.push({ base, options });
      return [{ dn: group('engineers'), cn: 'engineers' }];
    };
    const dn = 'CN=Ada (Admin)*,OU=People,DC=corp';
    expect(
      await readGroups(source(search, { nestedGroups: true }, true), { dn, memberOf: [] }),
    ).toEqual(['engineers']);
    expect(searches).toEqual([
      {
        base: 'dc=corp',
        options: expect.objectContaining({
          filter: '(member:1.2.840.113556.1.4.1941:=CN=Ada \\28Admin\\29\\2a,OU=People,DC=corp)',
        }),
      },
    ]);
  });
});
