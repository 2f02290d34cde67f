// Validates every manifest in deploy/k8s against the Kubernetes API schemas, offline: the
// kubernetes-models package ships them with a validator for each kind (no cluster needed).
//   node deploy/k8s/validate.mjs [dir]        exit 0 when all are valid, 1 otherwise
// Needs the dev dependencies `kubernetes-models` and `yaml`.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const dir = process.argv[2] ?? fileURLToPath(new URL('.', import.meta.url));
// kustomization.yaml is kustomize's own file, not a Kubernetes object.
const files = readdirSync(dir).filter(
  (name) => /\.ya?ml$/.test(name) && !/^kustomization\./.test(name),
);

let failures = 0;
let checked = 0;
for (const file of files.sort()) {
  for (const document of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
    if (document.errors.length > 0) {
      failures += 1;
      console.error(`${file}: not YAML: ${document.errors.map((e) => e.message).join('; ')}`);
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
      checked += 1;
      console.log(`ok   ${where}`);
    } catch (error) {
      failures += 1;
      console.error(
        `FAIL ${where}\n     ${String(error.message ?? error).replaceAll('\n', '\n     ')}`,
      );
    }
  }
}
console.log(`${checked} manifests valid, ${failures} invalid`);
process.exit(failures === 0 && checked > 0 ? 0 : 1);
