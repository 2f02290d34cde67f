import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityMaintenance, KEY_PUBLISH_LEAD_MS } from '#auth';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(() => stack?.close());

interface KeyRow {
  kid: string;
  activates_at: Date;
  retires_at: Date | null;
}

describe('the worker’s identity maintenance', () => {
  it('replaces a signing key past its age: published first, signing an hour later, the old one retiring then', async () => {
    const [newest] = await sql.rows<KeyRow>(
      'SELECT kid FROM signing_keys ORDER BY created_at DESC LIMIT 1',
      [],
    );
    await sql.rows(`UPDATE signing_keys SET created_at = now() - interval '91 days'`, []);
    const maintenance = stack.worker!.get(IdentityMaintenance);
    const ran = await maintenance.runOnce();
    // The worker's own scheduled run may have got there first (a loaded machine delays its
    // start-up run past the UPDATE above): either way exactly one new key must now exist.
    // …and may still be writing it (the new key, then the old one's retirement) when runOnce,
    // finding the rotation lock taken, returns.
    const replacements = await waitFor(async () => {
      const rows = await sql.rows<KeyRow>(
        "SELECT kid FROM signing_keys WHERE kid <> $1 AND created_at > now() - interval '1 hour'",
        [newest!.kid],
      );
      const [retiring] = await sql.rows<KeyRow>(
        'SELECT retires_at FROM signing_keys WHERE kid = $1',
        [newest!.kid],
      );
      return rows.length > 0 && retiring?.retires_at ? rows : null;
    });
    expect(replacements).toHaveLength(1);
    const rotatedTo = replacements[0]!.kid;
    if (ran.rotatedTo !== null) expect(ran.rotatedTo).toBe(rotatedTo);

    const [fresh] = await sql.rows<KeyRow>('SELECT * FROM signing_keys WHERE kid = $1', [
      rotatedTo,
    ]);
    const lead = fresh!.activates_at.getTime() - Date.now();
    expect(lead).toBeGreaterThan(KEY_PUBLISH_LEAD_MS - 60_000);
    const [old] = await sql.rows<KeyRow>('SELECT * FROM signing_keys WHERE kid = $1', [
      newest!.kid,
    ]);
    expect(old!.retires_at?.getTime()).toBe(fresh!.activates_at.getTime());

    const jwks = await client.get('/.well-known/jwks.json');
    const kids = (jwks.body.keys as { kid: string }[]).map((key) => key.kid);
    expect(kids).toEqual(expect.arrayContaining([newest!.kid, rotatedTo]));

    // Young keys are left alone.
    expect((await maintenance.runOnce()).rotatedTo).toBeNull();
  });

  it('deletes expired authorization data and keeps the rest', async () => {
    await sql.rows(
      `INSERT INTO oidc_payloads (kind, id, payload, expires_at) VALUES
         ('Interaction', 'expired-one', '{}', now() - interval '1 minute'),
         ('Interaction', 'live-one', '{}', now() + interval '1 hour')`,
      [],
    );
    await stack.worker!.get(IdentityMaintenance).runOnce();
    const left = await sql.rows<{ id: string }>(
      `SELECT id FROM oidc_payloads WHERE id IN ('expired-one', 'live-one')`,
      [],
    );
    expect(left.map((row) => row.id)).toEqual(['live-one']);
  });
});
