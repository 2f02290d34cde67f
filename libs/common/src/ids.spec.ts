import { describe, expect, it } from 'vitest';
import { isPublicId, newId, newKey, newUuid, parsePublicId, toPublicId } from './ids.js';

describe('public ids', () => {
  it('are the type prefix and 26 base32 characters', () => {
    expect(newId('session')).toMatch(/^sess_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(newId('event')).toMatch(/^evt_/);
    expect(newId('request')).toMatch(/^req_/);
    expect(newId('apiKey')).toMatch(/^key_/);
  });

  it('round-trip through the stored UUIDv7', () => {
    const { uuid, id } = newKey('session');
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(toPublicId('session', uuid)).toBe(id);
    expect(parsePublicId('session', id)).toBe(uuid);
  });

  it('of keys made without their public form are UUIDv7 too, time-ordered, and round-trip', async () => {
    const first = newUuid();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await new Promise((resolve) => setTimeout(resolve, 2));
    const second = newUuid();
    expect([second, first].sort()).toEqual([first, second]);
    expect(parsePublicId('event', toPublicId('event', first))).toBe(first);
  });

  it('are time-ordered: later ids sort after earlier ones', async () => {
    const first = newId('session');
    await new Promise((resolve) => setTimeout(resolve, 2));
    const second = newId('session');
    expect([second, first].sort()).toEqual([first, second]);
  });

  it('reject other kinds, wrong lengths and characters outside the alphabet', () => {
    const id = newId('session');
    expect(parsePublicId('analysis', id)).toBeNull();
    expect(parsePublicId('session', id.slice(0, -1))).toBeNull();
    expect(parsePublicId('session', `${id.slice(0, -1)}u`)).toBeNull();
    expect(parsePublicId('session', `SESS_${id.slice(5)}`)).toBeNull();
    expect(parsePublicId('session', 'sess_8zzzzzzzzzzzzzzzzzzzzzzzzz')).toBeNull();
    expect(isPublicId('request', 'req_<script>alert(1)</script>')).toBe(false);
  });
});
