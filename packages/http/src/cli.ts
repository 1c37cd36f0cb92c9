import { parseArgs } from 'node:util';
import { serve } from './serve.js';

const USAGE = `Usage: tidings serve [--port 3000] [--host 127.0.0.1] [--db ./.tidings/tidings.db | --postgres URL] [--api-key KEY] [--application-identifier ID] [--no-inbox-hash] [--webhook-allow host,10.0.0.0/8,…]`;

/** Longest a shutdown may take before the process exits anyway. */
const SHUTDOWN_BOUND_MS = 10_000;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== 'serve') {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: rest,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        db: { type: 'string' },
        postgres: { type: 'string' },
        'api-key': { type: 'string' },
        'application-identifier': { type: 'string' },
        'no-inbox-hash': { type: 'boolean' },
        'webhook-allow': { type: 'string' },
      },
    }).values as Record<string, string | undefined>;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const port = values['port'] === undefined ? 3000 : Number(values['port']);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`--port must be a port number\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  let server: Awaited<ReturnType<typeof serve>>;
  try {
    server = await serve({
      port,
      ...(values['host'] && { host: values['host'] }),
      ...(values['db'] && { db: values['db'] }),
      ...(values['postgres'] && { postgres: values['postgres'] }),
      ...(values['api-key'] && { apiKey: values['api-key'] }),
      ...(values['application-identifier'] && { applicationIdentifier: values['application-identifier'] }),
      ...(values['no-inbox-hash'] && { inboxHash: false }),
      ...(values['webhook-allow'] && { webhookAllow: values['webhook-allow'].split(',').map((s) => s.trim()).filter(Boolean) }),
    });
  } catch (error) {
    // One line, no stack: what could not be used and why (a StartupError says it already).
    console.error(`Tidings could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return;
  }
  console.log(`Tidings listening on ${server.url}`);
  if (server.apiKeyCreated) {
    console.log(`API key (new, kept in ${server.apiKeyFile}): ${server.apiKey}`);
    console.log(`Try: curl -H "Authorization: ApiKey ${server.apiKey}" ${server.url}/v1/integrations/active`);
  } else if (server.apiKeyFile) console.log(`API key: kept in ${server.apiKeyFile}`);
  console.log(`Application identifier (Novu's Inbox): ${server.applicationIdentifier}${server.applicationIdentifierFile ? ` (kept in ${server.applicationIdentifierFile})` : ''}`);
  if (values['no-inbox-hash']) console.warn('Warning: --no-inbox-hash: Inbox sessions open without the subscriber hash, so anyone who knows the application identifier can read any subscriber\'s inbox');
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error(`Tidings: shutdown took longer than ${SHUTDOWN_BOUND_MS / 1000} s; exiting`);
      process.exit(1);
    }, SHUTDOWN_BOUND_MS).unref();
    await server.close();
    console.log('Tidings stopped');
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

if (process.argv[1] && /cli\.(ts|js)$/.test(process.argv[1])) await main(process.argv.slice(2));
