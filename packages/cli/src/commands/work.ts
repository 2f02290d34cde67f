import type { Client } from '@sas/sdk';
import { sdkClient } from '../api.js';
import type { Action, GlobalOptions } from '../command-context.js';
import { resolveCredentials } from '../config.js';
import { EXIT_FAILURE, UsageError } from '../exit-codes.js';
import { fields, table, type Output } from '../output.js';
import { waitWithProgress } from '../progress.js';

/*
 * Sessions, analyses and dowsing queries: create (optionally waiting with a
 * progress bar), list with the spec's filters, get, results, cancel.
 */

type Kind = 'sessions' | 'analyses' | 'dowsing';

const COLUMNS: Record<Kind, string[]> = {
  sessions: ['session_id', 'type', 'status', 'progress', 'created_at'],
  analyses: ['analysis_id', 'target_type', 'status', 'priority', 'created_at'],
  dowsing: ['query_id', 'query_type', 'status', 'question', 'created_at'],
};

async function clientOf(globals: GlobalOptions): Promise<Client> {
  return sdkClient(await resolveCredentials(globals));
}

function extraBody(data: unknown): Record<string, unknown> {
  if (data === undefined) return {};
  try {
    const parsed = JSON.parse(String(data)) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // Reported below.
  }
  throw new UsageError('--data must be a JSON object, e.g. --data \'{"privacy_level":"private"}\'');
}

function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

/** Prints the created work, then waits for it when asked; exit 1 when it failed. */
async function created(
  client: Client,
  work: Record<string, unknown>,
  id: string,
  wait: boolean | undefined,
  out: Output,
): Promise<number | void> {
  if (!wait) {
    out.result(work, () => fields(work, out.colour));
    return;
  }
  out.info(`${id} created; waiting for it to finish`);
  const done = (await waitWithProgress(client, id, id, out)) as Record<string, unknown>;
  out.result(done, () => fields(done, out.colour));
  return done.status === 'failed' ? EXIT_FAILURE : undefined;
}

interface CreateSessionOptions {
  target: string;
  type?: string;
  modality?: string;
  duration?: number;
  data?: string;
  wait?: boolean;
}

export const createSession: Action<CreateSessionOptions> = async ({ options, globals, out }) => {
  const client = await clientOf(globals);
  const body = {
    ...extraBody(options.data),
    ...defined({
      target: options.target,
      type: options.type,
      modality: options.modality,
      duration_minutes: options.duration,
    }),
  };
  const session = await client.sessions.create(body as Parameters<Client['sessions']['create']>[0]);
  return created(
    client,
    session as unknown as Record<string, unknown>,
    session.session_id,
    options.wait,
    out,
  );
};

interface CreateAnalysisOptions {
  targetType: string;
  description?: string;
  analysisType?: string;
  priority?: string;
  data?: string;
  wait?: boolean;
}

export const createAnalysis: Action<CreateAnalysisOptions> = async ({ options, globals, out }) => {
  const client = await clientOf(globals);
  const body = {
    ...extraBody(options.data),
    ...defined({
      target_type: options.targetType,
      description: options.description,
      analysis_type: options.analysisType,
      priority: options.priority,
    }),
  };
  const analysis = (await client.analyses.create(
    body as Parameters<Client['analyses']['create']>[0],
  )) as unknown as Record<string, unknown>;
  return created(client, analysis, String(analysis.analysis_id), options.wait, out);
};

interface CreateDowsingOptions {
  queryType: string;
  precision?: string;
  data?: string;
  wait?: boolean;
}

export const createDowsing: Action<CreateDowsingOptions> = async ({
  args,
  options,
  globals,
  out,
}) => {
  const client = await clientOf(globals);
  const body = {
    ...extraBody(options.data),
    ...defined({
      question: args[0],
      query_type: options.queryType,
      precision_level: options.precision,
    }),
  };
  const query = (await client.dowsing.create(
    body as Parameters<Client['dowsing']['create']>[0],
  )) as unknown as Record<string, unknown>;
  return created(client, query, String(query.query_id), options.wait, out);
};

interface ListOptions {
  status?: string;
  limit: number;
}

/** `list --status --limit`: the v2 list's filter, the SDK's iterator stopped at `limit`. */
export function listWork(kind: Kind): Action<ListOptions> {
  return async ({ options, globals, out }) => {
    const client = await clientOf(globals);
    const filters = defined({
      status: options.status,
      // One page when it holds them all: the API's page size is at most 100.
      per_page: Math.max(1, Math.min(100, options.limit)),
    });
    const resource = client[kind] as unknown as {
      list(filters: Record<string, unknown>): { toArray(max: number): Promise<unknown[]> };
    };
    const items = (await resource.list(filters).toArray(options.limit)) as Record<
      string,
      unknown
    >[];
    out.result(items, () => table(items, COLUMNS[kind], out.colour));
  };
}

export function getWork(kind: Kind): Action {
  return async ({ args, globals, out }) => {
    const client = await clientOf(globals);
    const item = (await client[kind].get(String(args[0]))) as unknown as Record<string, unknown>;
    out.result(item, () => fields(item, out.colour));
  };
}

export function workResults(kind: 'sessions' | 'analyses'): Action {
  return async ({ args, globals, out }) => {
    const client = await clientOf(globals);
    const results = (await client[kind].results(String(args[0]))) as unknown as Record<
      string,
      unknown
    >;
    out.result(results, () => fields(results, out.colour));
  };
}

export function cancelWork(kind: 'sessions' | 'analyses'): Action {
  return async ({ args, globals, out }) => {
    const client = await clientOf(globals);
    const answer = (await client[kind].cancel(String(args[0]))) as unknown as Record<
      string,
      unknown
    >;
    out.result(answer, () => fields(answer, out.colour));
  };
}
