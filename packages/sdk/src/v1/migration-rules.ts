/**
 * How each 1.x call becomes its 2.0 form, for `sas migrate check` / `apply`.
 * `receiver` is the 1.x resource on a `SasClient` (`sessions` in
 * `sas.sessions.create(…)`), `method` the call; `automatic` says whether
 * `sas migrate apply` may rewrite it by itself (same arguments, an answer
 * of the same meaning), and `note` what the change means.
 */
export interface MigrationRule {
  receiver: 'sessions' | 'analysis' | 'dowsing' | 'history' | null;
  method: string;
  /** The 2.0 call: on a `Client` the receiver and method; for a function, its name. */
  replacement: { receiver: string | null; method: string };
  automatic: boolean;
  note: string;
}

export const MIGRATION_RULES: readonly MigrationRule[] = [
  {
    receiver: 'sessions',
    method: 'create',
    replacement: { receiver: 'sessions', method: 'create' },
    automatic: false,
    note: 'POST /v2/sessions/create: the body takes `type` and `target` (not the v1 aliases `session_type` and `cue`) and answers the whole session (v2), not just its id and status',
  },
  {
    receiver: 'sessions',
    method: 'retrieve',
    replacement: { receiver: 'sessions', method: 'get' },
    automatic: true,
    note: 'GET /v2/sessions/{id}: the v1 status fields plus the settings and, once completed, the results',
  },
  {
    receiver: 'sessions',
    method: 'getResults',
    replacement: { receiver: 'sessions', method: 'results' },
    automatic: true,
    note: 'renamed; the same GET /v1/sessions/{id}/results',
  },
  {
    receiver: 'sessions',
    method: 'list',
    replacement: { receiver: 'sessions', method: 'list' },
    automatic: false,
    note: 'now an async iterable over every page of GET /v2/sessions (`for await`), with v2 filters; `limit`/`offset` are gone (use `.toArray(n)`)',
  },
  {
    receiver: 'sessions',
    method: 'cancel',
    replacement: { receiver: 'sessions', method: 'cancel' },
    automatic: true,
    note: 'unchanged; the client moves to `Client`',
  },
  {
    receiver: 'analysis',
    method: 'submit',
    replacement: { receiver: 'analyses', method: 'create' },
    automatic: true,
    note: 'POST /v1/analysis/targets, the same body and answer as /v1/analysis/submit; the resource is `analyses`',
  },
  {
    receiver: 'analysis',
    method: 'retrieve',
    replacement: { receiver: 'analyses', method: 'get' },
    automatic: true,
    note: 'renamed; the same GET /v1/analysis/{id}',
  },
  {
    receiver: 'analysis',
    method: 'getResults',
    replacement: { receiver: 'analyses', method: 'results' },
    automatic: true,
    note: 'renamed; the same GET /v1/analysis/{id}/results',
  },
  {
    receiver: 'dowsing',
    method: 'query',
    replacement: { receiver: 'dowsing', method: 'create' },
    automatic: true,
    note: 'renamed; the same POST /v1/dowsing/query',
  },
  {
    receiver: 'dowsing',
    method: 'retrieve',
    replacement: { receiver: 'dowsing', method: 'get' },
    automatic: false,
    note: 'GET /v2/dowsing/queries/{id} answers the later-generation result: check the fields you read',
  },
  {
    receiver: 'history',
    method: 'search',
    replacement: { receiver: 'history', method: 'search' },
    automatic: false,
    note: 'now an async iterable over GET /v2/history/search (cursor pages); `limit`/`offset` are gone',
  },
  {
    receiver: null,
    method: 'verifySignature',
    replacement: { receiver: null, method: 'verifyWebhook' },
    automatic: false,
    note: '`await verifyWebhook(secret, rawBody, headers)` checks both signature schemes and the timestamp, throws on a mismatch and returns the parsed body (1.x returned a boolean)',
  },
];
