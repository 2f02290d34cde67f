import type { Entry, SearchOptions } from 'ldapts';
import { ldapLibrary } from '../libraries.js';
import { firstRdnType, firstRdnValue, parseDn } from './distinguished-name.js';
import type { LdapSettings } from './ldap-settings.js';
import { fillFilterTemplate } from './ldap-settings.js';

/** A nested-group walk stops this many levels above the user's own groups… */
export const NESTED_GROUP_MAX_DEPTH = 10;
/** …or after this many groups, whichever comes first. */
export const NESTED_GROUP_MAX_COUNT = 1_000;
/** Active Directory's LDAP_MATCHING_RULE_IN_CHAIN: membership through any number of groups. */
export const AD_IN_CHAIN_RULE = '1.2.840.113556.1.4.1941';

/** Runs one search as the service account (on the pool). */
export type DirectorySearch = (base: string, options: SearchOptions) => Promise<Entry[]>;

export interface GroupSource {
  settings: LdapSettings;
  search: DirectorySearch;
  /** The directory is Active Directory, whose in-chain rule replaces the walk. */
  activeDirectory: boolean;
  /** Where an Active Directory in-chain search starts when there is no group_base_dn. */
  defaultSearchBase: string;
}

interface FoundGroup {
  dn: string;
  name: string;
  /** DNs of the groups this group is a member of, when read (nested walks only). */
  parents: string[];
}

/** The names of the user's groups (de-duplicated, direct groups first). */
export async function readGroups(
  source: GroupSource,
  user: { dn: string; memberOf: string[] },
): Promise<string[]> {
  const { settings } = source;
  if (settings.nestedGroups && source.activeDirectory) {
    const base = settings.groupBaseDn ?? source.defaultSearchBase;
    const entries = await source.search(base, {
      scope: 'sub',
      filter: fillFilterTemplate(`(member:${AD_IN_CHAIN_RULE}:={dn})`, '{dn}', user.dn),
      attributes: [settings.groupNameAttribute],
    });
    return unique(entries.map((entry) => groupName(entry, settings.groupNameAttribute)));
  }
  const byFilter = settings.groupBaseDn !== null && settings.groupFilter !== null;
  const direct = byFilter
    ? await groupsWithMember(source, user.dn)
    : await Promise.all(user.memberOf.map((dn) => readGroupEntry(source, dn)));
  if (!settings.nestedGroups) return unique(direct.map((group) => group.name));
  return walkNestedGroups(direct, (group) =>
    byFilter
      ? groupsWithMember(source, group.dn)
      : Promise.all(group.parents.map((dn) => readGroupEntry(source, dn))),
  );
}

/**
 * Breadth first over groups of groups. The visited set ends cycles (A ∈ B ∈ A); depth
 * and count bounds end pathological directories.
 */
async function walkNestedGroups(
  direct: FoundGroup[],
  parentsOf: (group: FoundGroup) => Promise<FoundGroup[]>,
): Promise<string[]> {
  const visited = new Map<string, FoundGroup>();
  let level = direct.filter((group) => visit(visited, group));
  for (let depth = 0; depth < NESTED_GROUP_MAX_DEPTH && level.length > 0; depth++) {
    const next: FoundGroup[] = [];
    for (const group of level) {
      for (const parent of await parentsOf(group)) {
        if (visited.size >= NESTED_GROUP_MAX_COUNT) break;
        if (visit(visited, parent)) next.push(parent);
      }
    }
    level = next;
  }
  return unique([...visited.values()].map((group) => group.name));
}

function visit(visited: Map<string, FoundGroup>, group: FoundGroup): boolean {
  const key = dnKey(group.dn);
  if (visited.has(key) || visited.size >= NESTED_GROUP_MAX_COUNT) return false;
  visited.set(key, group);
  return true;
}

/** Groups under group_base_dn whose group_filter matches `memberDn` (a user or a group). */
async function groupsWithMember(source: GroupSource, memberDn: string): Promise<FoundGroup[]> {
  const { settings } = source;
  const entries = await source.search(settings.groupBaseDn!, {
    scope: 'sub',
    filter: fillFilterTemplate(settings.groupFilter!, '{dn}', memberDn),
    attributes: [settings.groupNameAttribute],
  });
  return entries.map((entry) => ({
    dn: entry.dn,
    name: groupName(entry, settings.groupNameAttribute),
    parents: [],
  }));
}

/**
 * A group named by a memberOf value. When its DN already carries the name (cn=…) and
 * no walk needs its own memberOf, it is not read. A group the service account cannot
 * read keeps its first RDN value as its name.
 */
async function readGroupEntry(source: GroupSource, dn: string): Promise<FoundGroup> {
  const { settings } = source;
  const nameAttribute = settings.groupNameAttribute;
  const fallback = { dn, name: firstRdnValue(dn) ?? dn, parents: [] };
  if (!settings.nestedGroups && firstRdnType(dn) === nameAttribute.toLowerCase()) return fallback;
  let entries: Entry[];
  try {
    entries = await source.search(dn, {
      scope: 'base',
      filter: '(objectClass=*)',
      attributes: [nameAttribute, 'memberOf'],
    });
  } catch (error) {
    // Gone or unreadable: named by its DN. An unreachable directory still fails the sign-in.
    if (error instanceof ldapLibrary().ResultCodeError) return fallback;
    throw error;
  }
  const entry = entries[0];
  if (entry === undefined) return fallback;
  return { dn, name: groupName(entry, nameAttribute), parents: attributeValues(entry, 'memberOf') };
}

function groupName(entry: Entry, attribute: string): string {
  return attributeValues(entry, attribute)[0] ?? firstRdnValue(entry.dn) ?? entry.dn;
}

/** An attribute's values as strings, whatever the case of its name in the entry. */
export function attributeValues(entry: Entry, attribute: string): string[] {
  const wanted = attribute.toLowerCase();
  const key = Object.keys(entry).find((name) => name.toLowerCase() === wanted && name !== 'dn');
  const value = key === undefined ? undefined : entry[key];
  if (value === undefined) return [];
  const values = Array.isArray(value) ? value : [value];
  return values.map((item) => (Buffer.isBuffer(item) ? item.toString('utf8') : item));
}

/** One key per group however its DN is spelled (case, spaces, escapes). */
function dnKey(dn: string): string {
  try {
    return JSON.stringify(
      parseDn(dn).map((rdn) =>
        rdn.map(({ type, value }) => `${type.toLowerCase()}=${value.toLowerCase()}`).sort(),
      ),
    );
  } catch {
    return dn.toLowerCase();
  }
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
