import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, matchesGlob, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freePort, testEnv } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * The Docker image, built without Docker (CI has no daemon): the build stage of the Dockerfile
 * replayed in a temporary directory standing for its WORKDIR — each COPY copies exactly the
 * paths it names from the repository (what .dockerignore leaves of them), each RUN runs there
 * with the stage's ENV — then the runtime stage's COPY --from=build assembles the image's
 * files, and the image's command starts from them. A file the build needs but the Dockerfile
 * does not copy fails here as it would in `docker compose up --build`.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string;
  instructions: Instruction[];
}

/** The Dockerfile's stages: continuation lines joined, comments and blank lines dropped. */
function stagesOf(dockerfile: string): Stage[] {
  const stages: Stage[] = [];
  let pending = '';
  for (const raw of dockerfile.split('\n')) {
    const line = raw.trimEnd();
    if (/^\s*#/.test(line) || (pending === '' && line.trim() === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const [, keyword, args] = /^\s*(\w+)\s+(.*)$/s.exec(pending + line)!;
    pending = '';
    const instruction = { keyword: keyword!.toUpperCase(), args: args!.trim() };
    if (instruction.keyword === 'FROM') {
      const name = /\s+AS\s+(\S+)$/i.exec(instruction.args)?.[1] ?? String(stages.length);
      stages.push({ name, instructions: [] });
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

/** The words of a shell-form or JSON-form argument list. */
function wordsOf(args: string): string[] {
  return args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
}

/** `ENV a=1 b="two"` (and the old `ENV key value`). */
function envOf(args: string): Record<string, string> {
  const pairs = [...args.matchAll(/(\w+)=("[^"]*"|'[^']*'|\S*)/g)];
  if (pairs.length === 0) {
    const [key, ...value] = args.split(/\s+/);
    return { [key!]: value.join(' ') };
  }
  return Object.fromEntries(
    pairs.map(([, key, value]) => [key, value!.replace(/^(["'])(.*)\1$/, '$2')]),
  );
}

/** .dockerignore as Docker reads it: the last pattern matching a path or one of its parents wins. */
async function dockerignore(): Promise<(path: string) => boolean> {
  const text = await readFile(join(ROOT, '.dockerignore'), 'utf8').catch(() => '');
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = posix.normalize((negated ? line.slice(1) : line).replace(/^\/+/, ''));
      return { negated, pattern };
    });
  return (path) => {
    const parts = path.split('/');
    const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
    let excluded = false;
    for (const { negated, pattern } of rules) {
      if (candidates.some((candidate) => matchesGlob(candidate, pattern))) excluded = !negated;
    }
    return excluded;
  };
}

/**
 * The environment of a RUN: what a machine needs to reach the npm registry and its cache, the
 * stage's ENV, and nothing of this test run (no NODE_ENV=test, no npm_* of a surrounding `npm
 * test`, which would point npm at this repository instead of the build directory).
 */
function runEnv(stageEnv: Record<string, string>): Record<string, string> {
  const passed =
    /^(PATH|HOME|TMPDIR|LANG|LC_ALL|TZ|NODE_EXTRA_CA_CERTS|(https?|no)_proxy|npm_config_(registry|cache|userconfig|cafile|strict_ssl|proxy|https_proxy|noproxy))$/i;
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => passed.test(entry[0]) && entry[1] !== undefined,
    ),
  );
  // Docker's build has the registry, not this machine's npm cache: the cache only makes it fast.
  return { ...inherited, ...stageEnv, npm_config_prefer_offline: 'true' };
}

/** Runs a command to its end; resolves with its exit code and the end of its output. */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const append = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The image's files: /app of the runtime stage. */
let image: string;
let build: string;
let buildLog: string[];
let runtimeEnv: Record<string, string>;
let command: string[];

beforeAll(async () => {
  const stages = stagesOf(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
  const buildStage = stages.find((stage) => stage.name === 'build');
  const runtimeStage = stages.at(-1)!;
  expect(buildStage, 'the Dockerfile has a stage named build').toBeDefined();
  const ignored = await dockerignore();
  const work = await mkdtemp(join(tmpdir(), 'sas-docker-'));
  build = join(work, 'build');
  image = join(work, 'image');
  buildLog = [];

  // /app of a stage is its directory here; only WORKDIR /app is supported, as the Dockerfile has.
  const at = (root: string, workdir: string, path: string) =>
    join(root, posix.relative(workdir, posix.resolve(workdir, path)));
  let stageEnv: Record<string, string> = {};
  let workdir = '/';
  for (const { keyword, args } of buildStage!.instructions) {
    if (keyword === 'WORKDIR') workdir = posix.resolve(workdir, args);
    if (keyword === 'ENV') stageEnv = { ...stageEnv, ...envOf(args) };
    if (keyword === 'COPY') {
      const words = wordsOf(args).filter((word) => !word.startsWith('--'));
      const destination = words.pop()!;
      const intoDirectory = destination.endsWith('/') || words.length > 1;
      for (const source of words) {
        const from = join(ROOT, source);
        const isDirectory = (await stat(from)).isDirectory();
        // A directory's contents go to the destination; a file goes into it, or becomes it.
        const to = at(
          build,
          workdir,
          intoDirectory && !isDirectory
            ? posix.join(destination, posix.basename(source))
            : destination,
        );
        await mkdir(dirname(to), { recursive: true });
        await cp(from, to, {
          recursive: true,
          filter: (path) => !ignored(relative(ROOT, path).split('\\').join('/')),
        });
      }
      buildLog.push(`COPY ${args}`);
    }
    if (keyword === 'RUN') {
      const cwd = at(build, workdir, '.');
      await mkdir(cwd, { recursive: true });
      const { code, output } = await run('sh', ['-c', args], cwd, runEnv(stageEnv));
      expect(code, `RUN ${args} failed; the end of its output:\n${output}`).toBe(0);
      buildLog.push(`RUN ${args}`);
    }
  }

  // The runtime stage takes its files from the build stage (moved: the build directory is spent).
  runtimeEnv = {};
  let runtimeWorkdir = '/';
  for (const { keyword, args } of runtimeStage.instructions) {
    if (keyword === 'WORKDIR') runtimeWorkdir = posix.resolve(runtimeWorkdir, args);
    if (keyword === 'ENV') runtimeEnv = { ...runtimeEnv, ...envOf(args) };
    if (keyword === 'CMD') command = wordsOf(args);
    if (keyword === 'COPY') {
      const words = wordsOf(args);
      const from = /^--from=(\S+)$/.exec(words.find((word) => word.startsWith('--from=')) ?? '');
      expect(from?.[1], `the runtime stage copies from the build stage only: COPY ${args}`).toBe(
        'build',
      );
      const paths = words.filter((word) => !word.startsWith('--'));
      const destination = paths.pop()!;
      for (const source of paths) {
        const path = at(build, workdir, source);
        expect(existsSync(path), `${source} exists after the build stage`).toBe(true);
        const isDirectory = (await stat(path)).isDirectory();
        const to = at(
          image,
          runtimeWorkdir,
          destination.endsWith('/') && !isDirectory
            ? posix.join(destination, posix.basename(source))
            : destination,
        );
        await mkdir(dirname(to), { recursive: true });
        await rename(path, to);
      }
    }
  }
});

afterAll(async () => {
  if (image) await rm(dirname(image), { recursive: true, force: true });
});

describe('the Docker image, built from exactly the files the Dockerfile copies', () => {
  it('installs and builds, with the SDK, the CLI and scripts/ copied in', () => {
    expect(buildLog).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^COPY packages /),
        expect.stringMatching(/^COPY scripts /),
        expect.stringMatching(/^RUN npm ci/),
        expect.stringMatching(/^RUN npm run build/),
      ]),
    );
    expect(existsSync(join(image, 'dist/apps/api/src/main.js'))).toBe(true);
    expect(existsSync(join(image, 'dist/apps/worker/src/main.js'))).toBe(true);
    expect(existsSync(join(image, 'dist/dashboard/index.html'))).toBe(true);
  });

  it('holds every file docker-compose.yml runs in it', async () => {
    const compose = parseYaml(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    }) as { services: Record<string, { build?: unknown; command?: string[] }> };
    const commands = Object.values(compose.services)
      .filter((service) => service.build !== undefined)
      .map((service) => service.command ?? command);
    expect(commands.length).toBeGreaterThan(0);
    const packageJson = JSON.parse(await readFile(join(image, 'package.json'), 'utf8'));
    for (const words of [command, ...commands]) {
      if (words[0] === 'npm' && words[1] === 'run') {
        const script: string | undefined = packageJson.scripts[words[2]!];
        expect(script, words.join(' ')).toBeDefined();
        for (const file of script!.match(/\bdist\/\S+\.js\b/g) ?? []) {
          expect(existsSync(join(image, file)), `${words.join(' ')}: ${file}`).toBe(true);
        }
      } else {
        const file = words.find((word) => word.endsWith('.js'))!;
        expect(existsSync(join(image, file)), `${words.join(' ')}: ${file}`).toBe(true);
      }
    }
  });

  it('migrates and serves from its production dependencies alone', async () => {
    const env = { ...runEnv(runtimeEnv), ...testEnv() };
    const migrated = await run('npm', ['run', 'db:migrate'], image, env);
    expect(migrated.code, migrated.output).toBe(0);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const api = spawn(command[0]!, command.slice(1), {
      cwd: image,
      env: { ...env, PORT: String(port), PUBLIC_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    api.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    api.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise((resolve) => api.once('exit', resolve));
    try {
      const live = await waitFor(async () => {
        if (api.exitCode !== null) throw new Error(`the API exited; its output:\n${output}`);
        const response = await fetch(`${url}/health/live`).catch(() => null);
        return response?.status === 200 ? response : null;
      });
      expect(live.status).toBe(200);
    } finally {
      api.kill('SIGKILL');
      await exited;
    }
  });
});
