// `node --enable-source-maps --import ./test/support/ts-register.mjs apps/worker/src/main.ts`
// runs a TypeScript entry point with the hooks of ts-loader-hooks.mjs (in-thread,
// synchronous hooks: no loader worker thread).
import { registerHooks } from 'node:module';
import { load, resolve } from './ts-loader-hooks.mjs';

registerHooks({ resolve, load });
