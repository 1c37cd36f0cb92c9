import { parseArgs } from 'node:util';
import { isClusterCopy, runClusterCopy, startCluster } from './cluster.js';
import { serve, type ServeCredentials, type ServeOptions } from './serve.js';

const USAGE = `Usage: tidings serve [--port 3000] [--host 127.0.0.1] [--db ./.tidings/tidings.db | --postgres URL [--schema NAME] [--processes N] [--lease-ms 30000]] [--api-key KEY] [--application-identifier ID] [--no-inbox-hash] [--webhook-allow host,10.0.0.0/8,…]`;

/** The most copies `--processes` starts (each holds up to 10 database connections). */
const MAX_PROCESSES = 64;

/** Longest a shutdown may take before the process exits anyway. */
const SHUTDOWN_BOUND_MS = 10_000;

export async function main(argv: string[]): Promise<void> {
  // A copy started by `--processes` takes its options from the primary, not from the command line.
  if (isClusterCopy()) return runClusterCopy();
  const [command, ...rest] = argv;
  if (command !== 'serve') {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  let parsed: { options: ServeOptions; processes: number };
  try {
    parsed = readArguments(rest);
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { options, processes } = parsed;
  let stop: () => Promise<boolean>;
  try {
    if (processes > 1) {
      const running = await startCluster(options, processes, {
        ready: (url, pids, credentials) => printBanner(`${url} (${pids.length} processes: ${pids.join(', ')})`, credentials, options),
        notice: (line) => console.error(`Tidings: ${line}`),
      });
      stop = () => running.stop(SHUTDOWN_BOUND_MS);
    } else {
      const server = await serve(options);
      printBanner(server.url, server, options);
      stop = async () => {
        await server.close();
        return true;
      };
    }
  } catch (error) {
    // One line, no stack: what could not be used and why (a StartupError says it already).
    console.error(`Tidings could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return;
  }
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    const bound = setTimeout(() => {
      console.error(`Tidings: shutdown took longer than ${SHUTDOWN_BOUND_MS / 1000} s; exiting`);
      process.exit(1);
    }, SHUTDOWN_BOUND_MS + 2_000);
    bound.unref();
    const clean = await stop();
    console.log(clean ? 'Tidings stopped' : 'Tidings stopped (a process had to be cut off)');
    process.exit(clean ? 0 : 1);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

/** A whole number option within bounds, or its default; anything else is an error naming the option. */
function wholeNumber(values: Record<string, string | undefined>, name: string, min: number, max: number, what: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be ${what}`);
  return value;
}

/** The command line as serve options; throws with a one-line reason (the caller adds the usage). */
function readArguments(args: string[]) {
  const values = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      db: { type: 'string' },
      postgres: { type: 'string' },
      schema: { type: 'string' },
      processes: { type: 'string' },
      'lease-ms': { type: 'string' },
      'api-key': { type: 'string' },
      'application-identifier': { type: 'string' },
      'no-inbox-hash': { type: 'boolean' },
      'webhook-allow': { type: 'string' },
    },
  }).values as Record<string, string | undefined>;
  const port = wholeNumber(values, 'port', 0, 65_535, 'a port number') ?? 3000;
  const processes = wholeNumber(values, 'processes', 1, MAX_PROCESSES, `a whole number from 1 to ${MAX_PROCESSES}`) ?? 1;
  const leaseMs = wholeNumber(values, 'lease-ms', 100, 86_400_000, 'a whole number of milliseconds, at least 100');
  if (values['schema'] !== undefined && !values['postgres']) throw new Error('--schema needs --postgres');
  if (processes > 1 && !values['postgres']) throw new Error('--processes needs --postgres: a SQLite file is written by one process; several share the work through Postgres');
  const options: ServeOptions = {
    port,
    ...(values['host'] && { host: values['host'] }),
    ...(values['db'] && { db: values['db'] }),
    ...(values['postgres'] && { postgres: values['postgres'] }),
    ...(values['schema'] && { schema: values['schema'] }),
    ...(leaseMs !== undefined && { leaseMs }),
    ...(values['api-key'] && { apiKey: values['api-key'] }),
    ...(values['application-identifier'] && { applicationIdentifier: values['application-identifier'] }),
    ...(values['no-inbox-hash'] && { inboxHash: false }),
    ...(values['webhook-allow'] && { webhookAllow: values['webhook-allow'].split(',').map((s) => s.trim()).filter(Boolean) }),
  };
  return { options, processes };
}

function printBanner(where: string, credentials: ServeCredentials, options: ServeOptions) {
  console.log(`Tidings listening on ${where}`);
  if (credentials.apiKeyCreated) {
    console.log(`API key (new, kept in ${credentials.apiKeyFile}): ${credentials.apiKey}`);
    console.log(`Try: curl -H "Authorization: ApiKey ${credentials.apiKey}" ${where.split(' ')[0]}/v1/integrations/active`);
  } else if (credentials.apiKeyFile) console.log(`API key: kept in ${credentials.apiKeyFile}`);
  console.log(`Application identifier (Novu's Inbox): ${credentials.applicationIdentifier}${credentials.applicationIdentifierFile ? ` (kept in ${credentials.applicationIdentifierFile})` : ''}`);
  if (options.inboxHash === false) console.warn('Warning: --no-inbox-hash: Inbox sessions open without the subscriber hash, so anyone who knows the application identifier can read any subscriber\'s inbox');
}

if (process.argv[1] && /cli\.(ts|js)$/.test(process.argv[1])) await main(process.argv.slice(2));
