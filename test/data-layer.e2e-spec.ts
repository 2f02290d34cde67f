import { describe, expect, it } from 'vitest';
import {
  foreignTables,
  methodsWithoutTenant,
  serviceFiles,
  sqlOutsideRepositories,
  tableOwners,
  workWritesWithoutCases,
  type Finding,
} from './support/data-layer-scan.js';

/**
 * The data layer's rules (docs/architecture.md, "Data layer"), checked over
 * the whole source tree, so a new file or method cannot skip them: SQL only
 * in repositories, a repository names only its own lib's tables, and a
 * method on a tenant table takes the tenant and applies it, and every write
 * of work keeps its history case.
 */

const files = serviceFiles();
const owners = await tableOwners();

const shown = (findings: Finding[]): string[] =>
  findings.map((finding) => `${finding.file}:${finding.line} ${finding.what}`);

describe('the data layer', () => {
  it('finds the tables and their owners', () => {
    expect(owners.get('sessions')?.lib).toBe('sessions');
    expect(owners.get('users')).toMatchObject({ lib: 'auth', organization: true, mode: false });
    expect(owners.get('events')).toMatchObject({ lib: 'events', organization: true, mode: true });
  });

  it('holds SQL only in repositories', () => {
    expect(shown(sqlOutsideRepositories(files))).toEqual([]);
  });

  it('names only tables of the lib a repository belongs to', () => {
    expect(shown(foreignTables(files, owners))).toEqual([]);
  });

  it('takes and applies the tenant on tenant tables', () => {
    expect(shown(methodsWithoutTenant(files, owners))).toEqual([]);
  });

  it('keeps the history case of every write of work', () => {
    expect(shown(workWritesWithoutCases(files))).toEqual([]);
  });
});
