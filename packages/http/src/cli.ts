import { parseArgs } from 'node:util';
import { serve } from './serve.js';

const USAGE = `Usage: tidings serve [--port 3000] [--host 127.0.0.1] [--db ./.tidings/tidings.db | --postgres URL] [--api-key KEY]`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== 'serve') {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const { values } = parseArgs({
    args: rest,
    options: { port: { type: 'string' }, host: { type: 'string' }, db: { type: 'string' }, postgres: { type: 'string' }, 'api-key': { type: 'string' } },
  });
  const port = values.port === undefined ? 3000 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`--port must be a port number\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const server = await serve({
    port,
    ...(values.host && { host: values.host }),
    ...(values.db && { db: values.db }),
    ...(values.postgres && { postgres: values.postgres }),
    ...(values['api-key'] && { apiKey: values['api-key'] }),
  });
  console.log(`Tidings listening on ${server.url}`);
  console.log(`API key: ${server.apiKey}`);
  console.log(`Try: curl -H "Authorization: ApiKey ${server.apiKey}" ${server.url}/v1/integrations/active`);
  const shutdown = async () => {
    await server.close();
    console.log('Tidings stopped');
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

if (process.argv[1] && /cli\.(ts|js)$/.test(process.argv[1])) await main(process.argv.slice(2));
