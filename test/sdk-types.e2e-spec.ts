import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@hey-api/openapi-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.js';

/**
 * The SDK's types are generated from the OpenAPI document the API serves and
 * checked in (packages/sdk/src/generated). This regenerates them and fails on
 * any drift; `npm run sdk:generate` (this file with SDK_TYPES_WRITE=1) writes
 * them after an API change.
 */

const GENERATED = new URL('../packages/sdk/src/generated/types.gen.ts', import.meta.url);
/** The document names the server it is served from; the types must not depend on the port. */
const CANONICAL_URL = 'https://api.example.com';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ worker: false });
});
afterAll(async () => {
  await stack?.close();
});

describe('the SDK types', () => {
  it('are what the served OpenAPI document generates', async () => {
    const served = await (await fetch(`${stack.baseUrl}/docs-json`)).text();
    const document = JSON.parse(served.split(stack.baseUrl).join(CANONICAL_URL)) as object;
    const output = await mkdtemp(join(tmpdir(), 'sdk-types-'));
    try {
      await createClient({
        input: document,
        output: { path: output },
        plugins: ['@hey-api/typescript'],
        logs: { level: 'silent' },
      });
      const generated = await readFile(join(output, 'types.gen.ts'), 'utf8');
      if (process.env.SDK_TYPES_WRITE === '1') await writeFile(GENERATED, generated);
      const checkedIn = await readFile(GENERATED, 'utf8').catch(() => '');
      expect(
        checkedIn === generated,
        'packages/sdk/src/generated/types.gen.ts is not what the API serves: run npm run sdk:generate',
      ).toBe(true);
    } finally {
      await rm(output, { recursive: true, force: true });
    }
  });
});
