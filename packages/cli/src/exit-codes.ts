/**
 * What `sas` exits with: 0 done (or nothing to migrate), 1 the command failed
 * or `migrate check` found changes to make, 2 the command line was wrong.
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_CHANGES_NEEDED = 1;
export const EXIT_USAGE = 2;

/** A failure the CLI explains itself (no stack trace), with the exit code it means. */
export class CliError extends Error {
  override readonly name: string = 'CliError';

  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
  }
}

/** The command line itself is wrong: exit code 2. */
export class UsageError extends CliError {
  override readonly name = 'UsageError';

  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}
