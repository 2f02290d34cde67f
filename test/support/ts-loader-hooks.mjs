// Node module-customisation hooks that run the service's TypeScript sources
// directly (for child processes started by test/support/processes.ts).
//
// Node's built-in type stripping cannot do this: the sources use decorators with
// emitDecoratorMetadata (NestJS). Each .ts file is compiled with @swc/core using
// the options unplugin-swc derives from tsconfig.json for vitest (legacy
// decorators + decorator metadata, keepClassNames, ES module output), with an
// inline source map. Registered in-thread (module.registerHooks) by
// ts-register.mjs: `node --import ./test/support/ts-register.mjs file.ts`.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';

/** The package.json "imports" condition that maps the #aliases to the TypeScript sources. */
const SOURCE_CONDITION = 'source';

const TS_FILE = /\.m?ts$/;

function isProjectFile(url) {
  return typeof url === 'string' && url.startsWith('file:') && !url.includes('/node_modules/');
}

function isRelative(specifier) {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

export function resolve(specifier, context, nextResolve) {
  const fromProject = isProjectFile(context.parentURL);
  // #aliases of our own files resolve to the sources; packages keep their usual conditions.
  if (fromProject && specifier.startsWith('#') && !context.conditions.includes(SOURCE_CONDITION)) {
    return nextResolve(specifier, {
      ...context,
      conditions: [SOURCE_CONDITION, ...context.conditions],
    });
  }
  // NodeNext-style `./x.js` in the sources names `./x.ts` when there is no `./x.js`.
  if (fromProject && isRelative(specifier) && specifier.endsWith('.js')) {
    const js = new URL(specifier, context.parentURL);
    if (!existsSync(fileURLToPath(js))) {
      const ts = new URL(specifier.slice(0, -'.js'.length) + '.ts', context.parentURL);
      if (existsSync(fileURLToPath(ts))) {
        return { url: ts.href, format: 'module', shortCircuit: true };
      }
    }
  }
  return nextResolve(specifier, context);
}

export function load(url, context, nextLoad) {
  if (isProjectFile(url) && TS_FILE.test(new URL(url).pathname)) {
    const filename = fileURLToPath(url);
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      filename,
      swcrc: false,
      configFile: false,
      sourceMaps: 'inline',
      module: { type: 'es6' },
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        target: 'es2024',
        keepClassNames: true,
        transform: { legacyDecorator: true, decoratorMetadata: true },
      },
    });
    return { format: 'module', source: code, shortCircuit: true };
  }
  return nextLoad(url, context);
}
