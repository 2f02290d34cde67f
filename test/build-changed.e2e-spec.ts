import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repository, without types
import { isStale, PARTS } from '../scripts/build-changed.mjs';

/** `npm start` builds only the parts whose sources changed (scripts/build-changed.mjs). */
const root = mkdtempSync(join(tmpdir(), 'build-changed-'));
const stamps = join(root, 'stamps');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const at = (seconds: number) => new Date(1_800_000_000_000 + seconds * 1000);
function file(relative: string, seconds: number): void {
  const full = join(root, relative);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, '');
  utimesSync(full, at(seconds), at(seconds));
}

describe('npm start’s build', () => {
  const part = { name: 'services', inputs: ['src'], skip: ['src/ui'], output: 'out/main.js' };

  it('builds a part with no output or no stamp, and not one whose sources are older than its stamp', () => {
    file('src/a.ts', 10);
    utimesSync(join(root, 'src'), at(10), at(10));
    expect(isStale(part, root, stamps)).toBe(true);
    file('out/main.js', 20);
    expect(isStale(part, root, stamps)).toBe(true);
    file('stamps/services', 20);
    expect(isStale(part, root, stamps)).toBe(false);
  });

  it('builds it again once a source is newer, but not for a change in a part it skips', () => {
    file('src/ui/page.tsx', 30);
    utimesSync(join(root, 'src/ui'), at(30), at(30));
    utimesSync(join(root, 'src'), at(10), at(10));
    expect(isStale(part, root, stamps)).toBe(false);
    file('src/b.ts', 40);
    expect(isStale(part, root, stamps)).toBe(true);
  });

  it('knows every part npm run build builds, each with its own output', () => {
    const names = (PARTS as { name: string }[]).map((each) => each.name);
    expect(names).toEqual(['services', 'sdk', 'cli', 'dashboard']);
  });
});
