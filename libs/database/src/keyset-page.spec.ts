import { describe, expect, it } from 'vitest';
import { EXACT_COUNT_LIMIT, keysetPage, SqlConditions, type RunSql } from './keyset-page.js';

describe('SqlConditions', () => {
  it('numbers placeholders in the order values are bound, and clones independently', () => {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param('org')}`).and(`status = ${where.param('done')}`);
    const copy = where.clone().and(`score > ${where.param(0.5)}`);
    expect(where.sql).toBe('(organization_id = $1) AND (status = $2)');
    expect(copy.sql).toBe('(organization_id = $1) AND (status = $2) AND (score > $3)');
    expect(new SqlConditions().sql).toBe('TRUE');
  });
});

/** A stand-in for PostgreSQL that records statements and answers counts. */
function recording(count: number, estimate = 0) {
  const statements: { text: string; parameters: unknown[] }[] = [];
  const run: RunSql = (text, parameters) => {
    statements.push({ text, parameters });
    if (text.startsWith('EXPLAIN'))
      return Promise.resolve([{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': estimate } }] }]);
    return Promise.resolve([{ count }]);
  };
  return { run, statements };
}

const list = (where: SqlConditions, seen: string[]) => ({
  table: 'sessions',
  where,
  scope: { organization_id: 'org', mode: 'live' },
  readRows: (idsSql: string, parameters: unknown[]) => {
    seen.push(idsSql, JSON.stringify(parameters));
    return Promise.resolve([]);
  },
});

describe('keysetPage', () => {
  it('anchors a cursor within the scope, and counts the rows before it only when not told', async () => {
    const where = new SqlConditions();
    where.and(`organization_id = ${where.param('org')}`);
    const { run, statements } = recording(3);
    const seen: string[] = [];
    const page = await keysetPage(run, list(where, seen), {
      afterId: 'anchor',
      before: null,
      perPage: 2,
    });
    expect(seen[0]).toContain(
      '(created_at, id) < (SELECT created_at, id FROM sessions WHERE id = $2 AND organization_id = $3 AND mode = $4)',
    );
    expect(seen[0]).toContain('LIMIT $5');
    expect(JSON.parse(seen[1]!)).toEqual(['org', 'anchor', 'org', 'live', 3]);
    expect(statements.some((s) => s.text.includes('>= (SELECT created_at, id'))).toBe(true);
    expect(page).toMatchObject({ total: 3, totalEstimated: false, before: 3 });
    // The caller's conditions are left as they were.
    expect(where.parameters).toEqual(['org']);

    const known = recording(3);
    await keysetPage(known.run, list(where, []), { afterId: 'anchor', before: 40, perPage: 2 });
    expect(known.statements.some((s) => s.text.includes('>= (SELECT'))).toBe(false);
  });

  it('counts exactly up to the limit, then takes the planner’s estimate', async () => {
    const where = new SqlConditions();
    const over = recording(EXACT_COUNT_LIMIT + 1, 250_000);
    const page = await keysetPage(over.run, list(where, []), {
      afterId: null,
      before: null,
      perPage: 20,
    });
    expect(page).toMatchObject({ total: 250_000, totalEstimated: true, before: 0 });
  });

  it('refuses names that are not plain identifiers', async () => {
    const { run } = recording(0);
    await expect(
      keysetPage(
        run,
        { ...list(new SqlConditions(), []), table: 'sessions; DROP' },
        { afterId: null, before: null, perPage: 1 },
      ),
    ).rejects.toThrow(/not an identifier/);
  });
});
