import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { Action } from './command-context.js';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { createOutput, reportError } from './output.js';

/*
 * The `sas` command tree. Only commander and a few small modules load at
 * start: each action imports its module (and through it the SDK, ts-morph,
 * cli-progress or ws) when it runs, so `sas --help` stays fast.
 */

const WORK_STATUSES = {
  sessions: ['initiated', 'in_progress', 'completed', 'failed'],
  analyses: ['queued', 'processing', 'completed', 'failed'],
  dowsing: ['pending', 'completed', 'failed'],
} as const;

/** Runs an action loaded on demand, with the output chosen by --json. */
function lazy<O>(load: () => Promise<Action<O>>) {
  return async (...params: unknown[]) => {
    const command = params.at(-1) as Command;
    const globals = command.optsWithGlobals();
    const out = createOutput(globals.json === true);
    const action = await load();
    const code = await action({
      args: params.slice(0, -2),
      options: command.opts() as O,
      globals,
      out,
    });
    process.exitCode = code ?? EXIT_OK;
  };
}

const integer = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) {
    throw new InvalidArgumentError(`${name} must be a whole number`);
  }
  return number;
};

/** An ISO 8601 date or date-time (`2025-06-01`, `2025-06-01T12:00:00Z`), sent as a UTC date-time. */
const isoTime = (name: string) => (value: string) => {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}([T ]|$)/.test(value) || !Number.isFinite(time)) {
    throw new InvalidArgumentError(`${name} must be an ISO 8601 date or date-time`);
  }
  return new Date(time).toISOString();
};

export function buildProgram(): Command {
  const program = new Command('sas')
    .description('The command-line tool of the Session and Analysis Service')
    .version('2.0.0', '-v, --version')
    .option('--json', 'print JSON instead of tables')
    .option('--profile <name>', 'the stored profile to use (default: SAS_PROFILE or "default")')
    .option('--api-url <url>', 'the API address (wins over SAS_API_URL and the profile)')
    .option('--insecure', 'allow a plain http:// API address to another machine (unencrypted)')
    .showHelpAfterError('(sas <command> --help shows its usage)')
    .addHelpText(
      'after',
      `
Credentials: SAS_API_KEY, or SAS_CLIENT_ID and SAS_CLIENT_SECRET, win over the
stored profile; SAS_API_URL over its address.
Exit codes: 0 done, 1 failed (or migrate check found changes), 2 usage error.`,
    );

  program
    .command('login')
    .description('store an API key or client credentials in a profile (file mode 0600)')
    .option('--api-key <key>', 'an API key (sk_live_… or sk_test_…)')
    .option('--client-id <id>', 'an OAuth client id (client credentials)')
    .option('--client-secret <secret>', 'the OAuth client secret')
    .option('--no-verify', 'store without asking the API whether the credential works')
    .action(lazy(async () => (await import('./commands/login.js')).login));

  program
    .command('logout')
    .description('forget the stored profile')
    .action(lazy(async () => (await import('./commands/login.js')).logout));

  program
    .command('whoami')
    .description('the organisation, mode, credential and scopes in use')
    .action(lazy(async () => (await import('./commands/whoami.js')).whoami));

  addSessions(program);
  addAnalyses(program);
  addDowsing(program);

  const history = program.command('history').description('the searchable history of finished work');
  history
    .command('search')
    .description('search cases, best match first')
    .argument('[q]', 'search text (words, "phrases", OR, -word)')
    .addOption(
      new Option('--type <type>', 'cases of one type').choices([
        'remote_viewing',
        'dowsing',
        'automatic_writing',
        'analysis',
      ]),
    )
    .addOption(new Option('--outcome <outcome>').choices(['verified', 'unverified']))
    .option('--from <date>', 'cases dated on or after this')
    .option('--to <date>', 'cases dated on or before this')
    .option('--limit <n>', 'at most this many', integer('--limit'), 20)
    .action(lazy(async () => (await import('./commands/history.js')).search));

  const audit = program
    .command('audit')
    .description("the organisation's audit log (admins; organizations:read)");
  audit
    .command('list')
    .description('audit events, newest first')
    .option('--action <action>', 'events of one action, e.g. api_key.created')
    .option('--actor <id>', 'events of one actor (a usr_…, key_… or client id)')
    .option('--target <id>', 'events on one target (its id)')
    .option('--since <time>', 'events at or after this ISO 8601 time', isoTime('--since'))
    .option('--until <time>', 'events before this ISO 8601 time', isoTime('--until'))
    .option('--limit <n>', 'at most this many (default 20; --ndjson: all)', integer('--limit'))
    .option('--ndjson', 'stream every matching event, one JSON object a line (not with --json)')
    .action(lazy(async () => (await import('./commands/audit.js')).list));

  const webhooks = program.command('webhooks').description('webhook tools');
  webhooks
    .command('listen')
    .description("stream the organisation's events and forward each, signed, to a local URL")
    .option('--forward-to <url>', 'POST each event here (without it, events are only printed)')
    .option('--events <types>', 'comma-separated event types (default: every one)')
    .option('--live', 'listen to live events (needs a live credential; default: test)')
    .action(lazy(async () => (await import('./commands/listen.js')).listen));

  const events = program.command('events').description('events');
  events
    .command('trigger')
    .description('send a sample event of a type (POST /v2/events/trigger)')
    .argument('<type>', 'an event type, e.g. session.completed')
    .action(lazy(async () => (await import('./commands/trigger.js')).trigger));

  const migrate = program
    .command('migrate')
    .description('move code from the 1.x SDK (@sas/sdk/v1) to 2.0');
  migrate
    .command('check')
    .description('list every 1.x call to change (exit 1 when there are changes)')
    .argument('[path]', 'the project directory or file', '.')
    .action(lazy(async () => (await import('./commands/migrate.js')).check));
  migrate
    .command('apply')
    .description('rewrite what can be rewritten safely, list the rest')
    .argument('[path]', 'the project directory or file', '.')
    .action(lazy(async () => (await import('./commands/migrate.js')).apply));

  program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: string) => {
      const { completionScript } = await import('./commands/completion.js');
      process.stdout.write(completionScript(shell as 'bash' | 'zsh' | 'fish', program));
    });

  return program;
}

function addWorkCommands(
  parent: Command,
  kind: 'sessions' | 'analyses' | 'dowsing',
  statuses: readonly string[],
): void {
  const load = async () => import('./commands/work.js');
  parent
    .command('list')
    .description(`list ${kind === 'dowsing' ? 'dowsing queries' : kind}, newest first`)
    .addOption(new Option('--status <status>').choices(statuses))
    .option('--limit <n>', 'at most this many', integer('--limit'), 20)
    .action(lazy(async () => (await load()).listWork(kind)));
  parent
    .command('get')
    .argument('<id>')
    .description('read one')
    .action(lazy(async () => (await load()).getWork(kind)));
}

function addSessions(program: Command): void {
  const sessions = program.command('sessions').description('remote-viewing sessions');
  sessions
    .command('create')
    .description('start a session')
    .requiredOption('--target <target>', 'what to view')
    .addOption(
      new Option('--type <type>')
        .choices(['remote_viewing', 'dowsing', 'automatic_writing'])
        .default('remote_viewing'),
    )
    .addOption(new Option('--modality <modality>').choices(['visual', 'kinesthetic', 'auditory']))
    .option('--duration <minutes>', 'duration in minutes', integer('--duration'))
    .option('--data <json>', 'more fields of the request body, as JSON')
    .option('--wait', 'wait until it completes, showing its progress')
    .action(lazy(async () => (await import('./commands/work.js')).createSession));
  addWorkCommands(sessions, 'sessions', WORK_STATUSES.sessions);
  sessions
    .command('results')
    .argument('<id>')
    .description('the results of a completed session')
    .action(lazy(async () => (await import('./commands/work.js')).workResults('sessions')));
  sessions
    .command('cancel')
    .argument('<id>')
    .description('cancel an unfinished session')
    .action(lazy(async () => (await import('./commands/work.js')).cancelWork('sessions')));
}

function addAnalyses(program: Command): void {
  const analyses = program.command('analyses').description('target analyses');
  analyses
    .command('create')
    .description('submit a target analysis')
    .addOption(
      new Option('--target-type <type>')
        .choices(['location', 'person', 'object', 'event'])
        .makeOptionMandatory(),
    )
    .option('--description <text>')
    .addOption(
      new Option('--analysis-type <type>').choices(['comprehensive', 'quick_scan', 'deep_dive']),
    )
    .addOption(new Option('--priority <priority>').choices(['low', 'medium', 'high', 'urgent']))
    .option('--data <json>', 'more fields of the request body, as JSON')
    .option('--wait', 'wait until it completes, showing its progress')
    .action(lazy(async () => (await import('./commands/work.js')).createAnalysis));
  addWorkCommands(analyses, 'analyses', WORK_STATUSES.analyses);
  analyses
    .command('results')
    .argument('<id>')
    .description('the results of a completed analysis')
    .action(lazy(async () => (await import('./commands/work.js')).workResults('analyses')));
  analyses
    .command('cancel')
    .argument('<id>')
    .description('cancel an unfinished analysis')
    .action(lazy(async () => (await import('./commands/work.js')).cancelWork('analyses')));
}

function addDowsing(program: Command): void {
  const dowsing = program.command('dowsing').description('dowsing queries');
  dowsing
    .command('query')
    .description('ask a dowsing question')
    .argument('<question>')
    .addOption(
      new Option('--query-type <type>')
        .choices(['location', 'information', 'yes_no'])
        .default('yes_no'),
    )
    .addOption(new Option('--precision <level>').choices(['standard', 'high', 'maximum']))
    .option('--data <json>', 'more fields of the request body, as JSON')
    .option('--wait', 'wait until it is answered')
    .action(lazy(async () => (await import('./commands/work.js')).createDowsing));
  addWorkCommands(dowsing, 'dowsing', WORK_STATUSES.dowsing);
}

/** Parses the command line, runs the command, and turns every failure into a message and an exit code. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  program.exitOverride();
  for (const command of allCommands(program)) command.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and the version are not failures; anything else commander refuses is a usage error.
      const done = ['commander.helpDisplayed', 'commander.version'].includes(error.code);
      process.exitCode = done ? EXIT_OK : EXIT_USAGE;
      return;
    }
    process.exitCode = reportError(error, argv.includes('--json'));
  }
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}

await main(process.argv);
