import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract } from './support/contract.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * The served OpenAPI document read strictly, as tools read it: Redocly's
 * linter finds no error in it (the `recommended` rules, as redocly.yaml sets
 * them), and a validator generated from it accepts the requests the server
 * accepts and refuses the ones it refuses.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REDOCLY = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer?: string }[];
}

let stack: Stack;
let served: string;
let document: any;
let contract: Contract;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  served = await (await fetch(`${stack.baseUrl}/docs-json`)).text();
  document = JSON.parse(served);
  contract = await Contract.load(stack.baseUrl);
});
afterAll(() => stack?.close());

/** Redocly CLI's report on the served document (it exits 1 when it finds errors). */
async function lint(): Promise<{ totals: { errors: number }; problems: LintProblem[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, served);
    const args = [REDOCLY, 'lint', '--config', join(ROOT, 'redocly.yaml')];
    args.push('--format', 'json', '--max-problems', '10000', file);
    const env = {
      ...process.env,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    };
    const output = await run(process.execPath, args, { cwd: ROOT, env, maxBuffer: 64 << 20 }).then(
      (result) => result.stdout,
      (error: { stdout?: string; stderr?: string }) => {
        if (!error.stdout) throw new Error(`redocly lint did not report: ${error.stderr}`);
        return error.stdout;
      },
    );
    return JSON.parse(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('redocly lint', () => {
  it('finds no error in the served document', async () => {
    const report = await lint();
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });
});

/**
 * Errors a validator generated from the document finds in a JSON request
 * body sent to `path` (`template` when it has parameters).
 */
function bodyErrors(method: string, path: string, body: unknown, template = path): unknown[] {
  const operationId = document.paths[template]?.[method]?.operationId;
  if (!operationId) throw new Error(`${method} ${template} is not documented`);
  return contract.requestBodyErrors(method, path, operationId, body);
}

describe('a validator generated from the document', () => {
  const COORDINATES = { latitude: 48.8584, longitude: 2.2945 };
  const CASE_ID = 'hist_01jh2x7v4ke8rbk3a8y0v0d7qz';
  const withCoordinates = (coordinates: unknown): [string, string, string, unknown][] => [
    ['post', '/v1/analysis/targets', '/v1/analysis/targets', analysis(coordinates)],
    ['post', '/v1/analysis/submit', '/v1/analysis/submit', analysis(coordinates)],
    ['post', '/v1/analysis/batch', '/v1/analysis/batch', { analyses: [analysis(coordinates)] }],
    ['post', '/v1/batch/analysis', '/v1/batch/analysis', { analyses: [analysis(coordinates)] }],
    ['post', '/v2/targets', '/v2/targets', { description: 'A lattice tower', coordinates }],
    [
      'put',
      '/v1/history/{case_id}/outcome',
      `/v1/history/${CASE_ID}/outcome`,
      { verdict: 'hit', verified_by: 'site visit', coordinates },
    ],
  ];
  function analysis(coordinates: unknown) {
    return { target_type: 'location', reference_material: { coordinates } };
  }

  it.each([
    ['a {latitude, longitude} object', COORDINATES],
    ['null (no position)', null],
  ])('accepts %s as the coordinates of every request body that takes them', (_name, value) => {
    for (const [method, template, path, body] of withCoordinates(value)) {
      expect(bodyErrors(method, path, body, template), `${method} ${template}`).toEqual([]);
    }
  });

  it('still refuses coordinates with a field they do not have', () => {
    for (const [method, template, path, body] of withCoordinates({ ...COORDINATES, altitude: 3 })) {
      expect(bodyErrors(method, path, body, template), `${method} ${template}`).not.toEqual([]);
    }
  });

  it('finds no schema with `nullable` beside a reference, which a strict reader refuses null by', () => {
    const found: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, index) => walk(item, `${at}/${index}`));
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.nullable === true && (schema.allOf !== undefined || schema.$ref !== undefined)) {
        found.push(at);
      }
      for (const [key, value] of Object.entries(schema)) walk(value, `${at}/${key}`);
    };
    walk(document, '#');
    expect(found).toEqual([]);
  });

  describe('session create bodies', () => {
    const creates: [string, string][] = [
      ['/v1/sessions', 'v1'],
      ['/v1/batch/sessions', 'v1 batch'],
      ['/v2/sessions/create', 'v2'],
      ['/v2/sessions/collaborative', 'v2'],
      ['/v2/mobile/sessions/create', 'v2'],
    ];
    const asBody = (path: string, session: object) =>
      path === '/v1/batch/sessions' ? { sessions: [session] } : session;

    it.each(creates)('%s takes both spellings and requires a type and a target', (path, kind) => {
      const accepted = [
        { type: 'remote_viewing', target: 'The object in envelope 4711' },
        { session_type: 'remote_viewing', cue: 'Where is the lost hiking boot?' },
        ...(kind === 'v2' ? [{ template_id: 'tpl_01jh2x7v4ke8rbk3a8y0v0d7qz', target: 'x' }] : []),
      ];
      for (const session of accepted) {
        expect(bodyErrors('post', path, asBody(path, session)), JSON.stringify(session)).toEqual(
          [],
        );
      }
      const refused = [{ target: 'no type' }, { cue: 'no type' }, { type: 'remote_viewing' }];
      for (const session of refused) {
        expect(
          bodyErrors('post', path, asBody(path, session)),
          JSON.stringify(session),
        ).not.toEqual([]);
      }
    });
  });
});
