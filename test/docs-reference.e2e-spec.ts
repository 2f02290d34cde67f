import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopesReference, settingsReference } from './support/reference-docs.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * docs/reference is generated from the code (issue 43) and checked in; this
 * regenerates it and fails on any drift. `npm run docs:reference` (this file
 * with DOCS_REFERENCE_WRITE=1) writes it after a change.
 */

const SETTINGS_FILE = new URL('../docs/reference/settings.md', import.meta.url);
const SCOPES_FILE = new URL('../docs/reference/scopes.md', import.meta.url);
const HINT = 'run npm run docs:reference';

async function matchesFile(file: URL, generated: string): Promise<void> {
  if (process.env.DOCS_REFERENCE_WRITE === '1') await writeFile(file, generated);
  const checkedIn = await readFile(file, 'utf8').catch(() => '');
  expect(checkedIn === generated, `${file.pathname} is not what the code says: ${HINT}`).toBe(true);
}

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ worker: false });
});
afterAll(() => stack?.close());

describe('the settings reference', () => {
  it('is the checked-in docs/reference/settings.md', async () => {
    await matchesFile(SETTINGS_FILE, settingsReference());
  });
});

describe('the scopes reference', () => {
  it('is the checked-in docs/reference/scopes.md, from the served OpenAPI document', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/docs-json`)).json()) as {
      paths: Record<string, Record<string, any>>;
    };
    const generated = scopesReference(document);
    expect(generated).toContain('| `GET /v2/sessions` |');
    await matchesFile(SCOPES_FILE, generated);
  });
});
