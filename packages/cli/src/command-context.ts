import type { Output } from './output.js';

/** The options every command takes (`--json`, `--profile`, `--api-url`, `--insecure`). */
export interface GlobalOptions {
  json?: boolean;
  profile?: string;
  apiUrl?: string;
  insecure?: boolean;
}

/** What a command's action receives: its arguments, its options and the output. */
export interface Invocation<O = Record<string, unknown>> {
  args: unknown[];
  options: O;
  globals: GlobalOptions;
  out: Output;
}

/** A command's action: answers the exit code, or nothing for 0. */
export type Action<O = Record<string, unknown>> = (
  invocation: Invocation<O>,
) => Promise<number | void>;
