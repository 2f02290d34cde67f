import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HAPROXY_BIN, HAPROXY_CONFIG } from './support/haproxy.js';

// The deployment files: the Kubernetes manifests in deploy/ against the Kubernetes API's schemas
// (kubernetes-models, offline), docker-compose.yml against the Compose Specification's schema
// (dclint, offline) and the load balancer's configuration by haproxy itself.

const run = promisify(execFile);
const DCLINT = 'node_modules/.bin/dclint';

/** Exit code and output of a command that may fail. */
async function attempt(file: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(file, args, { env: { ...process.env, ...env } });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('the deployment files', () => {
  it('hold Kubernetes manifests the API schemas accept', async () => {
    const { code, output } = await attempt(process.execPath, ['deploy/k8s/validate.mjs']);
    expect(output).toMatch(/ok {3}api\.yaml: Deployment /);
    expect(output).toMatch(/ok {3}worker\.yaml: Deployment /);
    expect(output).toContain('0 invalid');
    expect(code).toBe(0);
  });

  it('refuse a manifest the schemas do not accept, naming the field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sas-k8s-'));
    try {
      await writeFile(
        join(dir, 'broken.yaml'),
        [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata: { name: broken }',
          'spec:',
          '  replicas: two',
          '  selector: { matchLabels: { app: broken } }',
          '  template:',
          '    metadata: { labels: { app: broken } }',
          '    spec: { containers: [{ name: app, image: sas }] }',
        ].join('\n'),
      );
      const { code, output } = await attempt(process.execPath, ['deploy/k8s/validate.mjs', dir]);
      expect(code).toBe(1);
      expect(output).toContain('FAIL broken.yaml: Deployment broken');
      expect(output).toContain('replicas');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('hold a Compose file the Compose Specification accepts, anchors resolved', async () => {
    const { code, output } = await attempt(DCLINT, ['--max-warnings', '0', 'docker-compose.yml']);
    expect(output.trim()).toBe(''); // no error, no warning
    expect(code).toBe(0);
  });

  it('refuse a Compose file the specification does not accept, naming the field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sas-compose-'));
    try {
      const compose = await readFile('docker-compose.yml', 'utf8');
      // A misspelt key inside the anchor every app service takes (`<<: *app`).
      const broken = compose.replace('required: false', 'requird: false');
      expect(broken).not.toBe(compose);
      await writeFile(join(dir, 'docker-compose.yml'), broken);
      const { code, output } = await attempt(DCLINT, [join(dir, 'docker-compose.yml')]);
      expect(code).toBe(1);
      expect(output).toContain('invalid-schema');
      expect(output).toMatch(/instancePath="\/services\/[\w-]+\/env_file"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('hold an haproxy configuration haproxy accepts', async () => {
    const { code, output } = await attempt(HAPROXY_BIN, ['-c', '-f', HAPROXY_CONFIG], {
      API_1: '127.0.0.1:3001',
      API_2: '127.0.0.1:3002',
    });
    expect(output).toContain('Configuration file is valid');
    expect(code).toBe(0);
  });
});
