import { sdkClient } from '../api.js';
import type { Action } from '../command-context.js';
import { resolveCredentials } from '../config.js';
import { table } from '../output.js';

interface SearchOptions {
  type?: string;
  outcome?: string;
  from?: string;
  to?: string;
  limit: number;
}

/** `sas history search [q]`: cases best match first, up to --limit. */
export const search: Action<SearchOptions> = async ({ args, options, globals, out }) => {
  const client = await sdkClient(await resolveCredentials(globals));
  const filters = Object.fromEntries(
    Object.entries({
      q: args[0],
      type: options.type,
      outcome: options.outcome,
      date_from: options.from,
      date_to: options.to,
      per_page: Math.max(1, Math.min(100, options.limit)),
    }).filter(([, value]) => value !== undefined),
  );
  const cases = (await client.history
    .search(filters as Parameters<typeof client.history.search>[0])
    .toArray(options.limit)) as unknown as Record<string, unknown>[];
  out.result(cases, () => table(cases, ['id', 'type', 'date', 'verdict', 'snippet'], out.colour));
};
