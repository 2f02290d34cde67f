// ESLint flat config. Type-aware rules are left out on purpose: `tsc --noEmit`
// already type-checks, and the syntactic rule set keeps `npm run lint` fast.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The Node.js globals our plain JavaScript uses (the `globals` package is not a dependency).
const nodeGlobals = Object.fromEntries(
  [
    'AbortController',
    'AbortSignal',
    'Buffer',
    'URL',
    'URLSearchParams',
    'clearInterval',
    'clearTimeout',
    'console',
    'fetch',
    'process',
    'setInterval',
    'setTimeout',
  ].map((name) => [name, 'readonly']),
);

const unusedVarsOptions = {
  argsIgnorePattern: '^_',
  varsIgnorePattern: '^_',
  caughtErrorsIgnorePattern: '^_',
};

export default defineConfig(
  globalIgnores([
    'dist/',
    '**/dist/',
    'node_modules/',
    '.data/',
    'coverage/',
    'bench/results/',
    // Generated from the served OpenAPI document (test/sdk-types.e2e-spec.ts checks it).
    'packages/sdk/src/generated/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: { '@typescript-eslint/no-unused-vars': ['error', unusedVarsOptions] },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: nodeGlobals },
    // typescript-eslint's rule replaces the core one in TypeScript; plain JS keeps the core one.
    rules: { 'no-unused-vars': ['error', unusedVarsOptions] },
  },
  {
    // Tests read JSON bodies whose shape the contract check and the assertions pin down.
    files: ['test/**', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Services log through the Nest/pino logger (JSON lines); scripts, bench and tests may print.
    files: ['apps/**', 'libs/**'],
    rules: { 'no-console': 'error' },
  },
);
