import { parseArgs } from 'node:util';
import { isClusterCopy, runClusterCopy, startCluster } from './cluster.js';
import { serve, type ServeCredentials, type ServeOptions } from './serve.js';
import { workflowsCommand } from './workflows-command.js';
import { keysCommand } from './keys-command.js';

const USAGE = 'Usage: tidings serve [options]; "tidings serve --help" lists every option and its environment variable; "tidings workflows --help" keeps workflows as files; "tidings keys --help" manages API keys';

/** The most copies `--processes` starts (each holds up to 10 database connections). */
const MAX_PROCESSES = 64;

/** Longest a shutdown may take before the process exits anyway. */
const SHUTDOWN_BOUND_MS = 10_000;

/** One option of `tidings serve`: its flag, the environment variable it also reads, and what `--help` says of it. */
interface OptionSpec {
  readonly flag: string;
  /** The value's placeholder; none for a switch (a switch's variable takes true/false). */
  readonly value?: string;
  readonly env: string;
  /** How the variable is read, when it is not simply the flag's value. */
  readonly envNote?: string;
  readonly meaning: string;
  readonly default: string;
}

/**
 * The variable `--db`, `--postgres` and `--mysql` read: a postgres:// (or postgresql://) URL picks Postgres, a mysql://
 * (or mariadb://) URL MySQL, anything else is a SQLite file.
 */
const DATABASE_VARIABLE = 'TIDINGS_DATABASE_URL';

export const SERVE_OPTIONS: readonly OptionSpec[] = [
  { flag: 'port', value: '<number>', env: 'TIDINGS_PORT', meaning: 'Port to listen on, 1-65535 (0 picks a free port).', default: '3000' },
  { flag: 'host', value: '<address>', env: 'TIDINGS_HOST', meaning: 'Address to listen on; 0.0.0.0 listens on every interface (e.g. in a container).', default: '127.0.0.1' },
  { flag: 'db', value: '<file>', env: DATABASE_VARIABLE, envNote: 'any value but a postgres:// or mysql:// URL is a SQLite file', meaning: "SQLite database file (the docs' apps use the same default); the API key is kept in its folder.", default: '.tidings/tidings.db' },
  {
    flag: 'read-only',
    env: 'TIDINGS_READ_ONLY',
    meaning: "Read the SQLite file while another process (your app) writes it: the activity page and the\n      API's reads answer from it; no job runs, and every request but GET, HEAD and OPTIONS is refused\n      (405). Without it, a file another process writes is refused at start. Needs SQLite.",
    default: 'off',
  },
  {
    flag: 'postgres',
    value: '<url>',
    env: DATABASE_VARIABLE,
    envNote: 'a postgres:// or postgresql:// URL picks Postgres',
    meaning: 'Postgres connection URL (postgres://user:password@host:5432/db), used instead of SQLite.',
    default: 'none (SQLite)',
  },
  {
    flag: 'mysql',
    value: '<url>',
    env: DATABASE_VARIABLE,
    envNote: 'a mysql:// or mariadb:// URL picks MySQL',
    meaning: 'MySQL 8 or MariaDB 10.6+ connection URL (mysql://user:password@host:3306/db), used instead of SQLite.',
    default: 'none (SQLite)',
  },
  { flag: 'schema', value: '<name>', env: 'TIDINGS_SCHEMA', meaning: "Postgres schema that holds Tidings' tables, created when missing (needs Postgres).", default: "the database's default (public)" },
  { flag: 'processes', value: '<n>', env: 'TIDINGS_PROCESSES', meaning: `Server processes sharing the port, 1-${MAX_PROCESSES} (more than 1 needs Postgres or MySQL).`, default: '1' },
  { flag: 'lease-ms', value: '<ms>', env: 'TIDINGS_LEASE_MS', meaning: 'How long a claimed job stays leased to its process before another may take it over (min 100).', default: '30000' },
  { flag: 'api-key', value: '<key>', env: 'TIDINGS_API_KEY', meaning: 'The API key clients send as "Authorization: ApiKey <key>".', default: 'generated on first start, kept in api-key beside the SQLite file (.tidings/ with Postgres)' },
  { flag: 'previous-api-key', value: '<key>', env: 'TIDINGS_PREVIOUS_API_KEY', meaning: "The API key before a rotation: Inbox subscriber hashes and sessions made with it keep working\n      until --previous-api-key-until (server callers rotate with stored keys: tidings keys rotate).", default: 'none' },
  { flag: 'previous-api-key-until', value: '<date-time>', env: 'TIDINGS_PREVIOUS_API_KEY_UNTIL', meaning: 'When the previous API key stops opening Inbox sessions (ISO 8601, e.g. 2026-07-01T12:00:00Z).', default: 'required with --previous-api-key' },
  { flag: 'application-identifier', value: '<id>', env: 'TIDINGS_APPLICATION_IDENTIFIER', meaning: "The public identifier Novu's Inbox opens sessions with.", default: 'generated on first start, kept beside the API key' },
  { flag: 'no-inbox-hash', env: 'TIDINGS_NO_INBOX_HASH', meaning: "Open Inbox sessions without the subscriber's HMAC hash (then anyone who knows the\n      application identifier can read any subscriber's inbox).", default: 'off (the hash is required)' },
  { flag: 'webhook-allow', value: '<list>', env: 'TIDINGS_WEBHOOK_ALLOW', meaning: 'Comma-separated hosts, addresses or CIDR ranges webhook and hosted-service providers\n      may reach, besides public addresses.', default: 'none (loopback, private and link-local addresses are refused)' },
  { flag: 'workflows', value: '<module>', env: 'TIDINGS_WORKFLOWS', meaning: "A module whose exported code workflows (@tidings/framework) run beside the stored ones\n      (.js / .mjs; .ts when started through a TypeScript loader such as tsx).", default: 'none' },
  {
    flag: 'trust-proxy',
    env: 'TIDINGS_TRUST_PROXY',
    meaning: 'Clients reach the server only through a proxy that sets X-Forwarded-Proto and X-Forwarded-Host\n      (overwriting what clients send): status callbacks signed over their URL (Twilio) are checked\n      against the URL those name. Off, the headers are ignored, since any client can send them.',
    default: "off (the request's own URL)",
  },
  { flag: 'public-url', value: '<url>', env: 'TIDINGS_PUBLIC_URL', meaning: 'The address people reach this server at (https://notify.example.com): signed preference and\n      unsubscribe links point there, and emails get one-click unsubscribe headers.', default: 'none (no links, no unsubscribe headers)' },
  { flag: 'no-activity', env: 'TIDINGS_NO_ACTIVITY', meaning: 'Do not serve the activity page at /activity (its data always needs the API key).', default: 'off (the page is served)' },
  { flag: 'quiet', env: 'TIDINGS_QUIET', meaning: 'No log line per HTTP request (failed, not-sent and skipped deliveries are still logged).', default: 'off' },
  {
    flag: 'metrics',
    env: 'TIDINGS_METRICS',
    meaning: "Serve the engine's metrics at GET /metrics in Prometheus' text format, never with the API key\n      (counts and latencies only: no ids, addresses or content; storage counted at most every 5 s).\n      Without --metrics-token anyone who reaches the port may scrape. Needs --processes 1.",
    default: 'off',
  },
  {
    flag: 'metrics-token',
    value: '<token>',
    env: 'TIDINGS_METRICS_TOKEN',
    meaning: 'Answer GET /metrics only to "Authorization: Bearer <token>" (a 401 otherwise). Needs --metrics.',
    default: 'none (/metrics answers anyone)',
  },
];

export const HELP = [
  'Usage: tidings serve [options]',
  '',
  'Serves the Tidings HTTP API (Novu-compatible) over a SQLite file or a Postgres database.',
  '',
  'Each option can also be set with the environment variable shown (for containers); an option on the',
  'command line wins over its variable, and an empty variable counts as unset. Switches take true/false',
  '(also 1/0, yes/no, on/off) in their variable.',
  '',
  'Options:',
  ...SERVE_OPTIONS.flatMap((o) => [
    `  --${o.flag}${o.value ? ` ${o.value}` : ''}`,
    `      ${o.meaning}`,
    `      Default: ${o.default}`,
    `      Environment: ${o.env}${o.value ? '' : '=true'}${o.envNote ? ` (${o.envNote})` : ''}`,
    '',
  ]),
  '  -h, --help',
  '      Print this help and exit.',
  '',
  'Logs: after the start-up lines, one JSON object per line on stdout (level, time, pid, hostname, msg;',
  'request headers and bodies are never logged, nor the API key but for a newly generated one, shown',
  'once at start):',
  '  an HTTP request once answered (method, path without the query string, status, ms; aborted: true',
  '  when the connection closed first; the transactionId or transactionIds a trigger answered with):',
  '      {"level":"info",…,"method":"POST","path":"/v1/events/trigger","status":201,"ms":12,"transactionId":"<id>","msg":"request"}',
  '  a delivery that failed, was not sent (no integration, no address) or was skipped (a preference,',
  '  filter, schedule or cap), and a job that gave up:',
  '      {"level":"warn",…,"transactionId":"<id>","subscriberId":"<id>","channel":"email","reason":"<error>","msg":"delivery failed"}',
  '      {"level":"warn",…,"transactionId":"<id>","subscriberId":"<id>","channel":"sms","reason":"<why>","msg":"delivery not_sent"}',
  '      {"level":"info",…,"transactionId":"<id>","subscriberId":"<id>","channel":"email","stepIndex":0,"reason":"<why>","msg":"delivery skipped"}',
  '      {"level":"error",…,"transactionId":"<id>","subscriberId":"<id>","kind":"walk","error":"<error>","msg":"job failed"}',
].join('\n');

/** A command-line mistake: exit 2 with this line and the usage. */
class ArgumentError extends Error {}

export async function main(argv: string[]): Promise<void> {
  // A copy started by `--processes` takes its options from the primary, not from the command line.
  if (isClusterCopy()) return runClusterCopy();
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help' || (command === 'serve' && wantsHelp(rest))) {
    console.log(HELP);
    return;
  }
  if (command === 'workflows') {
    process.exitCode = await workflowsCommand(rest);
    return;
  }
  if (command === 'keys') {
    process.exitCode = await keysCommand(rest);
    return;
  }
  if (command !== 'serve') {
    console.error(`${command === undefined ? 'Missing the command' : `Unknown command ${command}`}: tidings has three commands, serve, workflows and keys\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  let parsed: { options: ServeOptions; processes: number };
  try {
    parsed = readArguments(rest, process.env);
  } catch (error) {
    if (!(error instanceof ArgumentError)) throw error;
    console.error(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { options, processes } = parsed;
  // Signals are heard before the banner is printed: a signal sent on reading it must not find Node's default (death).
  const starting = start(options, processes);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    const bound = setTimeout(() => {
      console.error(`Tidings: shutdown took longer than ${SHUTDOWN_BOUND_MS / 1000} s; exiting`);
      process.exit(1);
    }, SHUTDOWN_BOUND_MS + 2_000);
    bound.unref();
    const stop = await starting;
    if (!stop) return process.exit();
    const clean = await stop();
    console.log(clean ? 'Tidings stopped' : 'Tidings stopped (a process had to be cut off)');
    process.exit(clean ? 0 : 1);
  };
  // A start that failed set exit code 1; its handlers keep no process alive, and a signal then exits with that code.
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await starting;
}

/** Starts one process or a cluster and prints the banner; resolves with how to stop it, or nothing when it could not start. */
async function start(options: ServeOptions, processes: number): Promise<(() => Promise<boolean>) | undefined> {
  try {
    if (processes > 1) {
      const running = await startCluster(options, processes, {
        ready: (url, pids, credentials) => printBanner(`${url} (${pids.length} processes: ${pids.join(', ')})`, credentials, options),
        notice: (line) => console.error(`Tidings: ${line}`),
      });
      return () => running.stop(SHUTDOWN_BOUND_MS);
    }
    const server = await serve(options);
    printBanner(server.url, server, options);
    return async () => {
      await server.close();
      return true;
    };
  } catch (error) {
    // One line, no stack: what could not be used and why (a StartupError says it already).
    console.error(`Tidings could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return undefined;
  }
}

/** `--help` or `-h` anywhere before a `--`. */
const wantsHelp = (args: readonly string[]) => {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

/** parseArgs' errors, said in one line naming the option. */
function argumentError(error: unknown): ArgumentError {
  const { code, message } = error as { code?: string; message: string };
  const named = /'([^']+)'/.exec(message)?.[1] ?? '';
  const flag = named.split(' ')[0]!;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const near = SERVE_OPTIONS.find((o) => `--${o.flag}` === flag.toLowerCase().replace(/_/g, '-').replace(/^-+/, '--'));
    return new ArgumentError(`Unknown option ${flag}${near ? ` (did you mean --${near.flag}?)` : ''}`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return new ArgumentError(/does not take an argument/.test(message) ? `${flag} takes no value` : `${flag} needs a value`);
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return new ArgumentError(`Unexpected argument ${named}: tidings serve takes options only`);
  return new ArgumentError(message.split('\n')[0]!);
}

/** A value and where it came from (`--port` or `TIDINGS_PORT`), for messages that name it. */
interface Setting {
  readonly value: string;
  readonly source: string;
}

const SWITCH_VALUES: Record<string, boolean> = { true: true, '1': true, yes: true, on: true, false: false, '0': false, no: false, off: false };

/**
 * The command line, then the environment, as serve options; throws an ArgumentError with a one-line
 * reason naming the flag or variable (the caller adds the usage). Reads and checks everything before
 * anything is opened or written.
 */
export function readArguments(args: string[], env: NodeJS.ProcessEnv) {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      options: Object.fromEntries([...SERVE_OPTIONS.map((o) => [o.flag, { type: o.value ? 'string' : 'boolean' }] as const), ['help', { type: 'boolean', short: 'h' }] as const]),
    }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw argumentError(error);
  }
  const fromEnv = (name: string): Setting | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : { value, source: name };
  };
  /** The flag's value if given (it must not be empty), else its variable's. */
  const setting = (flag: string): Setting | undefined => {
    const given = values[flag];
    if (typeof given === 'string') {
      if (given.trim() === '') throw new ArgumentError(`--${flag} needs a value`);
      return { value: given, source: `--${flag}` };
    }
    return fromEnv(SERVE_OPTIONS.find((o) => o.flag === flag)!.env);
  };
  const toggle = (flag: string): boolean => {
    if (values[flag] === true) return true;
    const variable = fromEnv(SERVE_OPTIONS.find((o) => o.flag === flag)!.env);
    if (!variable) return false;
    const on = SWITCH_VALUES[variable.value.trim().toLowerCase()];
    if (on === undefined) throw new ArgumentError(`${variable.source} must be true or false (also 1/0, yes/no, on/off), not "${variable.value}"`);
    return on;
  };
  const whole = (flag: string, min: number, max: number, what: string): number | undefined => {
    const given = setting(flag);
    if (!given) return undefined;
    const value = /^\s*\d+\s*$/.test(given.value) ? Number(given.value) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) throw new ArgumentError(`${given.source} must be ${what}, not "${given.value}"`);
    return value;
  };
  const text = (flag: string, spaces = true): string | undefined => {
    const given = setting(flag);
    if (given && !spaces && /\s/.test(given.value)) throw new ArgumentError(`${given.source} must not contain spaces`);
    return given?.value.trim();
  };

  const port = whole('port', 0, 65_535, 'a port number from 1 to 65535 (0 picks a free port)') ?? 3000;
  const host = text('host', false);
  // The database: --db, --postgres or --mysql, else TIDINGS_DATABASE_URL (a postgres:// URL is Postgres, a mysql:// URL
  // MySQL, anything else a SQLite file).
  const given = (['db', 'postgres', 'mysql'] as const).filter((flag) => values[flag] !== undefined);
  if (given.length > 1) throw new ArgumentError(`--${given[0]} and --${given[1]} cannot be used together: --db is a SQLite file, --postgres a Postgres URL, --mysql a MySQL URL`);
  let db: string | undefined;
  let postgres: string | undefined;
  let mysql: string | undefined;
  if (values['db'] !== undefined) db = setting('db')!.value;
  else if (values['postgres'] !== undefined) postgres = setting('postgres')!.value.trim();
  else if (values['mysql'] !== undefined) mysql = setting('mysql')!.value.trim();
  else {
    const url = fromEnv(DATABASE_VARIABLE)?.value.trim();
    if (url && /^postgres(ql)?:\/\//i.test(url)) postgres = url;
    else if (url && /^(mysql|mariadb):\/\//i.test(url)) mysql = url;
    else if (url && /^[a-z][a-z\d+.-]*:\/\//i.test(url)) throw new ArgumentError(`${DATABASE_VARIABLE} must be a postgres:// or mysql:// URL or a SQLite file path, not a ${url.split(':')[0]}:// URL`);
    else if (url) db = url;
  }
  const postgresNeeded = `needs Postgres (--postgres, or a postgres:// ${DATABASE_VARIABLE})`;
  const schema = setting('schema');
  if (schema && !postgres) throw new ArgumentError(`${schema.source} ${postgresNeeded}`);
  const processes = whole('processes', 1, MAX_PROCESSES, `a whole number from 1 to ${MAX_PROCESSES}`) ?? 1;
  if (processes > 1 && !postgres && !mysql) {
    throw new ArgumentError(
      `${setting('processes')!.source} needs Postgres or MySQL (--postgres or --mysql, or such a ${DATABASE_VARIABLE}): a SQLite file is written by one process; several share the work through Postgres or MySQL`,
    );
  }
  const readOnly = toggle('read-only');
  if (readOnly && (postgres || mysql)) throw new ArgumentError(`${values['read-only'] === true ? '--read-only' : 'TIDINGS_READ_ONLY'} is for a SQLite file another process writes: on Postgres or MySQL, run another tidings serve beside it`);
  const leaseMs = whole('lease-ms', 100, 86_400_000, 'a whole number of milliseconds from 100 to 86400000');
  // The key is never repeated in a message.
  const apiKey = setting('api-key');
  if (apiKey && /\s/.test(apiKey.value)) throw new ArgumentError(`${apiKey.source} must not contain spaces (clients send it as "Authorization: ApiKey <key>")`);
  const applicationIdentifier = text('application-identifier', false);
  // The previous key is never repeated in a message either.
  const previousKey = setting('previous-api-key');
  const previousUntil = setting('previous-api-key-until');
  if (previousKey && !previousUntil) throw new ArgumentError(`${previousKey.source} needs --previous-api-key-until (or TIDINGS_PREVIOUS_API_KEY_UNTIL): when the previous key stops opening Inbox sessions`);
  if (previousUntil && !previousKey) throw new ArgumentError(`${previousUntil.source} needs --previous-api-key (or TIDINGS_PREVIOUS_API_KEY)`);
  if (previousUntil && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(previousUntil.value.trim())) throw new ArgumentError(`${previousUntil.source} must be an ISO 8601 date-time with a zone, as 2026-07-01T12:00:00Z`);
  const noInboxHash = toggle('no-inbox-hash');
  const webhookAllow = setting('webhook-allow')?.value.split(',').map((s) => s.trim()).filter(Boolean);
  const quiet = toggle('quiet');
  const noActivity = toggle('no-activity');
  const trustProxy = toggle('trust-proxy');
  const workflows = text('workflows');
  const publicUrl = setting('public-url');
  if (publicUrl && !/^https?:\/\/[^\s/]+/i.test(publicUrl.value)) throw new ArgumentError(`${publicUrl.source} must be an http(s) URL (https://notify.example.com)`);
  const metrics = toggle('metrics');
  // The token is never repeated in a message.
  const metricsToken = setting('metrics-token');
  if (metricsToken && !metrics) throw new ArgumentError(`${metricsToken.source} needs --metrics (or TIDINGS_METRICS=true)`);
  if (metricsToken && /\s/.test(metricsToken.value)) throw new ArgumentError(`${metricsToken.source} must not contain spaces (scrapers send it as "Authorization: Bearer <token>")`);
  // Each process keeps its own counts, and a scrape reaches one of them.
  if (metrics && processes > 1) throw new ArgumentError('--metrics needs --processes 1: each process counts on its own, and a scrape of the shared port reaches only one of them');

  const options: ServeOptions = {
    port,
    ...(host && { host }),
    ...(db !== undefined && { db }),
    ...(readOnly && { readOnly }),
    ...(postgres && { postgres }),
    ...(mysql && { mysql }),
    ...(schema && { schema: schema.value.trim() }),
    ...(leaseMs !== undefined && { leaseMs }),
    ...(apiKey && { apiKey: apiKey.value }),
    ...(applicationIdentifier && { applicationIdentifier }),
    ...(previousKey && previousUntil && { previousInboxKey: { key: previousKey.value, until: previousUntil.value.trim() } }),
    ...(noInboxHash && { inboxHash: false }),
    ...(webhookAllow?.length && { webhookAllow }),
    ...(workflows && { workflows }),
    ...(noActivity && { activity: false }),
    ...(trustProxy && { trustProxy }),
    ...(publicUrl && { publicUrl: publicUrl.value.trim() }),
    ...(metrics && { metrics: metricsToken ? { token: metricsToken.value } : true }),
    log: { requests: !quiet, deliveries: true },
  };
  return { options, processes };
}

function printBanner(where: string, credentials: ServeCredentials, options: ServeOptions) {
  console.log(`Tidings listening on ${where}`);
  if (options.readOnly) console.log(`Read-only: ${options.db ?? '.tidings/tidings.db'} is read while another process writes it; no job runs here, and changes are refused`);
  if (credentials.apiKeyCreated) {
    console.log(`API key (new, kept in ${credentials.apiKeyFile}): ${credentials.apiKey}`);
    console.log(`Try: curl -H "Authorization: ApiKey ${credentials.apiKey}" ${where.split(' ')[0]}/v1/integrations/active`);
  } else if (credentials.apiKeyFile) console.log(`API key: kept in ${credentials.apiKeyFile}`);
  console.log(`Application identifier (Novu's Inbox): ${credentials.applicationIdentifier}${credentials.applicationIdentifierFile ? ` (kept in ${credentials.applicationIdentifierFile})` : ''}`);
  if (options.inboxHash === false) console.warn('Warning: --no-inbox-hash: Inbox sessions open without the subscriber hash, so anyone who knows the application identifier can read any subscriber\'s inbox');
}

if (process.argv[1] && /cli\.(ts|js)$/.test(process.argv[1])) await main(process.argv.slice(2));
