/**
 * The layering of the monorepo, checked on every lint (`npm run lint:layers`):
 *
 *   apps/*                          adapters: HTTP, WebSocket, queue processors
 *   libs/<feature>                  api-keys auth organizations sessions webhooks …
 *   libs/events                     outbox, event catalogue, relay
 *   libs/database queue engines     infrastructure, the work engines and
 *        outbound                   outbound HTTP under the destination policy
 *   libs/common config statistics   no dependencies on the rest
 *
 * A lib imports only its own layer's neighbours and the layers below, never an
 * app; nothing imports in a cycle; libs/statistics is pure (no Nest, no I/O,
 * no other lib). Imports are followed through the `#name` subpath imports of
 * package.json (their `source` condition points at the TypeScript).
 */
const BASE = ['common', 'config', 'statistics'];
const INFRASTRUCTURE = ['database', 'queue', 'engines', 'outbound'];
const EVENTS = ['events'];

const libs = (names) => `^libs/(${names.join('|')})/`;
const BELOW_EVENTS = [...BASE, ...INFRASTRUCTURE];
const BELOW_FEATURES = [...BELOW_EVENTS, ...EVENTS];

export default {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'Fix the dependency direction instead of going round in a circle (STYLE: no forwardRef).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'libs-never-import-apps',
      severity: 'error',
      comment: 'Apps are adapters over the libs; the domain never depends on them.',
      from: { path: '^libs/' },
      to: { path: '^(apps|test|bench|scripts)/' },
    },
    {
      name: 'apps-stay-apart',
      severity: 'error',
      comment: 'What two apps share belongs in a lib; one app never imports the other.',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'base-stays-at-the-bottom',
      severity: 'error',
      comment: 'common, config and statistics depend on no other lib but each other.',
      from: { path: libs(BASE) },
      to: { path: '^libs/', pathNot: libs(BASE) },
    },
    {
      name: 'infrastructure-below-events',
      severity: 'error',
      comment: 'database, queue, engines and outbound use only the base libs and each other.',
      from: { path: libs(INFRASTRUCTURE) },
      to: { path: '^libs/', pathNot: libs(BELOW_EVENTS) },
    },
    {
      name: 'events-below-features',
      severity: 'error',
      comment: 'The event log and relay know no feature: features subscribe to them.',
      from: { path: libs(EVENTS) },
      to: { path: '^libs/', pathNot: libs(BELOW_FEATURES) },
    },
    {
      name: 'statistics-is-pure',
      severity: 'error',
      comment: 'Pure functions: nothing but its own files (and its tests’ tools).',
      from: { path: '^libs/statistics/', pathNot: '\\.spec\\.ts$' },
      to: { pathNot: '^libs/statistics/' },
    },
    {
      name: 'testing-tools-for-specs',
      severity: 'error',
      comment:
        'A lib’s testing/ holds its specs’ tools: the build leaves it out, so only specs import it.',
      from: { pathNot: '\\.spec\\.ts$|/testing/' },
      to: { path: '^libs/[^/]+/src/testing/' },
    },
    {
      name: 'libs-speak-no-http',
      severity: 'error',
      comment: 'HTTP and Swagger types belong to apps/api (STYLE: apps are adapters).',
      from: { path: '^libs/' },
      to: { path: 'node_modules/(express|@nestjs/swagger|@nestjs/platform-express)/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import the checker cannot follow is an import it cannot check.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Packages are checked as imports (HTTP types, statistics' purity) but not cruised into.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      // Packages that name their entry points only in `exports` (file-type) resolve too:
      // dependency-cruiser ignores `exports` unless told.
      exportsFields: ['exports'],
      conditionNames: ['source', 'import', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
  },
};
