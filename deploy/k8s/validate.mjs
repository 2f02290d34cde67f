// Validates every manifest in deploy/k8s against the Kubernetes API schemas, offline: the
// kubernetes-models package ships them with a validator for each kind (no cluster needed).
//   npm run k8s:validate    (node deploy/k8s/validate.mjs [dir]): exit 0 when all are valid
// test/deploy.e2e-spec.ts runs the same check in every test run.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const MANIFESTS = fileURLToPath(new URL('.', import.meta.url));

/**
 * Every Kubernetes object of the directory's YAML files, checked: `{ valid: ['file: Kind name'],
 * invalid: ['file: Kind name: why'] }`. kustomization.yaml is kustomize's own file, not an object.
 */
export async function validateManifests(dir = MANIFESTS) {
  const files = readdirSync(dir).filter(
    (name) => /\.ya?ml$/.test(name) && !/^kustomization\./.test(name),
  );
  const valid = [];
  const invalid = [];
  for (const file of files.sort()) {
    for (const document of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      if (document.errors.length > 0) {
        invalid.push(`${file}: not YAML: ${document.errors.map((e) => e.message).join('; ')}`);
        continue;
      }
      const object = document.toJS();
      if (object === null) continue;
      const where = `${file}: ${object.kind} ${object.metadata?.name ?? '(no name)'}`;
      try {
        // apiVersion "apps/v1" → kubernetes-models/apps/v1, "v1" → kubernetes-models/v1.
        const models = await import(`kubernetes-models/${object.apiVersion}`);
        const Model = models[object.kind];
        if (!Model) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
        new Model(object).validate();
        valid.push(where);
      } catch (error) {
        invalid.push(`${where}: ${String(error.message ?? error)}`);
      }
    }
  }
  return { valid, invalid };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { valid, invalid } = await validateManifests(process.argv[2] ?? MANIFESTS);
  for (const line of valid) console.log(`ok   ${line}`);
  for (const line of invalid) console.error(`FAIL ${line.replaceAll('\n', '\n     ')}`);
  console.log(`${valid.length} manifests valid, ${invalid.length} invalid`);
  process.exit(invalid.length === 0 && valid.length > 0 ? 0 : 1);
}
