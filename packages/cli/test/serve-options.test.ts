/**
 * `tidings serve`'s options: `--help`, the environment variable each also reads (a flag wins), values
 * refused before anything is written, the `.gitignore` in `.tidings/`, and the log lines (one per
 * request, one per delivery that failed or was not sent). Every wait is for a line, an exit or a
 * port, never for a fixed time.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { HELP, readArguments } from '../src/cli.js';
import { engineLogging, loggedPath, serveLogger } from '../src/serve-log.js';

const CLI = 'packages/cli/src/cli.ts';
const dir = mkdtempSync(join(tmpdir(), 'tidings-serve-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every option and the variable it reads, as issue 27 asks for them. */
const OPTIONS: [flag: string, variable: string][] = [
  ['--port', 'TIDINGS_PORT'],
  ['--host', 'TIDINGS_HOST'],
  ['--db', 'TIDINGS_DATABASE_URL'],
  ['--postgres', 'TIDINGS_DATABASE_URL'],
  ['--schema', 'TIDINGS_SCHEMA'],
  ['--processes', 'TIDINGS_PROCESSES'],
  ['--lease-ms', 'TIDINGS_LEASE_MS'],
  ['--api-key', 'TIDINGS_API_KEY'],
  ['--application-identifier', 'TIDINGS_APPLICATION_IDENTIFIER'],
  ['--previous-api-key', 'TIDINGS_PREVIOUS_API_KEY'],
  ['--previous-api-key-until', 'TIDINGS_PREVIOUS_API_KEY_UNTIL'],
  ['--no-inbox-hash', 'TIDINGS_NO_INBOX_HASH'],
  ['--no-activity', 'TIDINGS_NO_ACTIVITY'],
  ['--webhook-allow', 'TIDINGS_WEBHOOK_ALLOW'],
  ['--quiet', 'TIDINGS_QUIET'],
  ['--metrics', 'TIDINGS_METRICS'],
];

/** None of the variables from the shell running the tests: each test sets the ones it means. */
const NO_VARIABLES: NodeJS.ProcessEnv = Object.fromEntries(OPTIONS.map(([, variable]) => [variable, undefined]));

/** Children started in a folder of their own (spawnTs runs in the repository's root); killed after each test. */
const inFolder = new Set<ReturnType<typeof spawnTs>>();
afterEach(async () => {
  await killSpawned();
  await Promise.all(
    [...inFolder].map(async (child) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await child.exited;
    }),
  );
  inFolder.clear();
});

/** `tidings serve` with `cwd` as its working directory (where it keeps `.tidings/` by default). */
function serveIn(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): ReturnType<typeof spawnTs> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', tsx, '--conditions=@tidings/source', cli, 'serve', ...args], { cwd, env: { ...process.env, ...NO_VARIABLES, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = Object.assign(child, { output: () => output, exited });
  inFolder.add(started);
  return started;
}

const serveCli = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnTs(CLI, ['serve', ...args], { ...NO_VARIABLES, ...env });

/** Resolves with the URL once the server listens. */
async function listening(child: ReturnType<typeof spawnTs>): Promise<string> {
  await waitForOutput(child, /listening on http:\/\/\S+/);
  return /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
}

/** A port nothing listens on, held by `hold` (to make a port busy) or released. */
async function port(hold = false): Promise<{ port: number; release: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const { port: number } = server.address() as AddressInfo;
  if (!hold) await release();
  return { port: number, release };
}

async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `ApiKey ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json().catch(() => null)) as { data: Record<string, unknown> } | null };
}

describe('--help', { timeout: 180_000 }, () => {
  it('lists every option with its meaning, default and environment variable, and exits 0 (also -h)', async () => {
    for (const flag of ['--help', '-h']) {
      const child = serveCli([flag]);
      expect(await child.exited).toBe(0);
      const output = child.output();
      expect(output).toBe(`${HELP}\n`);
      expect(output).toMatch(/^Usage: tidings serve \[options\]\n/);
      for (const [option, variable] of OPTIONS) {
        // The option's own paragraph: its meaning, then its default and its variable.
        const paragraph = new RegExp(`\\n  ${option}\\b[^\\n]*\\n(      [^\\n]+\\n)+`).exec(output)?.[0];
        expect(paragraph, option).toBeDefined();
        expect(paragraph).toMatch(/\n      Default: \S/);
        expect(paragraph).toContain(`Environment: ${variable}`);
      }
      expect(output).toContain('-h, --help');
    }
  });

  it('--help wins over anything else on the line, even options it would refuse', async () => {
    const child = serveCli(['--port', 'nope', '--frobnicate', '--help']);
    expect(await child.exited).toBe(0);
    expect(child.output()).toBe(`${HELP}\n`);
  });
});

describe('refused before anything is written: exit 2, naming the option or variable, pointing to --help', { timeout: 180_000 }, () => {
  it('an unknown option', async () => {
    const db = join(dir, 'unknown', 'tidings.db');
    const child = serveCli(['--db', db, '--frobnicate=1']);
    expect(await child.exited).toBe(2);
    const [first, second] = child.output().trim().split('\n');
    expect(first).toBe('Unknown option --frobnicate');
    expect(second).toContain('tidings serve --help');
    expect(existsSync(join(dir, 'unknown'))).toBe(false);
    const near = serveCli(['--api_key', 'k']);
    expect(await near.exited).toBe(2);
    expect(near.output()).toMatch(/^Unknown option --api_key \(did you mean --api-key\?\)\n/);
  });

  it('a bad value in a variable or a flag', async () => {
    const db = join(dir, 'refused', 'tidings.db');
    const cases: [args: string[], env: NodeJS.ProcessEnv, line: string][] = [
      [[], { TIDINGS_PORT: '70000', TIDINGS_DATABASE_URL: db }, 'TIDINGS_PORT must be a port number from 1 to 65535 (0 picks a free port), not "70000"'],
      [['--db', db, '--port', '-1'], {}, '--port needs a value'],
      [['--db', db, '--port', '80x'], {}, '--port must be a port number from 1 to 65535 (0 picks a free port), not "80x"'],
      [['--db', db], { TIDINGS_QUIET: 'maybe' }, 'TIDINGS_QUIET must be true or false (also 1/0, yes/no, on/off), not "maybe"'],
      [[], { TIDINGS_DATABASE_URL: 'mongodb://root@127.0.0.1/tidings' }, 'TIDINGS_DATABASE_URL must be a postgres:// or mysql:// URL or a SQLite file path, not a mongodb:// URL'],
      [['--db', db], { TIDINGS_API_KEY: 'has a space' }, 'TIDINGS_API_KEY must not contain spaces (clients send it as "Authorization: ApiKey <key>")'],
    ];
    await Promise.all(
      cases.map(async ([args, env, line]) => {
        const child = serveCli(args, env);
        expect(await child.exited).toBe(2);
        const [first, second] = child.output().trim().split('\n');
        expect(first).toBe(line);
        expect(second).toContain('tidings serve --help');
      }),
    );
    // Nothing was created: no database, no key.
    expect(existsSync(join(dir, 'refused'))).toBe(false);
  });
});

describe('each option from the command line, else from its environment variable', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => readArguments(args, env);

  it('reads every variable', () => {
    const { options, processes } = run([], {
      TIDINGS_PORT: '8080',
      TIDINGS_HOST: '0.0.0.0',
      TIDINGS_DATABASE_URL: 'postgres://tidings@db:5432/tidings',
      TIDINGS_SCHEMA: 'notify',
      TIDINGS_PROCESSES: '4',
      TIDINGS_LEASE_MS: '5000',
      TIDINGS_API_KEY: 'tid_env',
      TIDINGS_APPLICATION_IDENTIFIER: 'app_env',
      TIDINGS_PREVIOUS_API_KEY: 'tid_old',
      TIDINGS_PREVIOUS_API_KEY_UNTIL: '2026-07-01T12:00:00Z',
      TIDINGS_NO_INBOX_HASH: 'true',
      TIDINGS_WEBHOOK_ALLOW: 'hooks.internal, 10.0.0.0/8',
      TIDINGS_QUIET: '1',
    });
    expect(processes).toBe(4);
    expect(options).toEqual({
      port: 8080,
      host: '0.0.0.0',
      postgres: 'postgres://tidings@db:5432/tidings',
      schema: 'notify',
      leaseMs: 5000,
      apiKey: 'tid_env',
      applicationIdentifier: 'app_env',
      previousInboxKey: { key: 'tid_old', until: '2026-07-01T12:00:00Z' },
      inboxHash: false,
      webhookAllow: ['hooks.internal', '10.0.0.0/8'],
      log: { requests: false, deliveries: true },
    });
  });

  it('defaults: nothing set logs requests and deliveries; empty variables count as unset', () => {
    expect(run([], {}).options).toEqual({ port: 3000, log: { requests: true, deliveries: true } });
    expect(run([], { TIDINGS_PORT: '', TIDINGS_API_KEY: '', TIDINGS_DATABASE_URL: '' }).options).toEqual({ port: 3000, log: { requests: true, deliveries: true } });
    expect(run([], { TIDINGS_QUIET: 'off', TIDINGS_NO_INBOX_HASH: 'false' }).options).toEqual({ port: 3000, log: { requests: true, deliveries: true } });
  });

  it('TIDINGS_DATABASE_URL: a mysql:// or mariadb:// URL is MySQL, as --mysql is; several processes may share it', () => {
    expect(run([], { TIDINGS_DATABASE_URL: 'mysql://u@h:3306/d' }).options).toMatchObject({ mysql: 'mysql://u@h:3306/d' });
    expect(run([], { TIDINGS_DATABASE_URL: 'mariadb://u@h/d' }).options.mysql).toBe('mariadb://u@h/d');
    expect(run(['--mysql', 'mysql://flag@h/d'], { TIDINGS_DATABASE_URL: '/data/tidings.db' }).options).toMatchObject({ mysql: 'mysql://flag@h/d' });
    expect(run(['--mysql', 'mysql://flag@h/d'], {}).options.db).toBeUndefined();
    expect(run(['--processes', '2'], { TIDINGS_DATABASE_URL: 'mysql://u@h/d' }).processes).toBe(2);
  });

  it('TIDINGS_DATABASE_URL: a postgres:// or postgresql:// URL is Postgres, anything else a SQLite file', () => {
    expect(run([], { TIDINGS_DATABASE_URL: 'postgresql://u@h/d' }).options.postgres).toBe('postgresql://u@h/d');
    expect(run([], { TIDINGS_DATABASE_URL: '/data/tidings.db' }).options).toMatchObject({ db: '/data/tidings.db' });
    expect(run([], { TIDINGS_DATABASE_URL: '/data/tidings.db' }).options.postgres).toBeUndefined();
  });

  it('a flag wins over its variable (whose value is then not even checked)', () => {
    const env = { TIDINGS_PORT: 'not a port', TIDINGS_HOST: '0.0.0.0', TIDINGS_API_KEY: 'from-env', TIDINGS_DATABASE_URL: 'postgres://u@h/d', TIDINGS_LEASE_MS: '1', TIDINGS_WEBHOOK_ALLOW: 'env.example' };
    const { options } = run(['--port', '0', '--host', '::1', '--api-key', 'from-flag', '--db', 'x.db', '--lease-ms', '200', '--webhook-allow', 'flag.example'], env);
    expect(options).toEqual({ port: 0, host: '::1', db: 'x.db', apiKey: 'from-flag', leaseMs: 200, webhookAllow: ['flag.example'], log: { requests: true, deliveries: true } });
    expect(run(['--postgres', 'postgres://flag@h/d'], { TIDINGS_DATABASE_URL: '/data/tidings.db' }).options).toMatchObject({ postgres: 'postgres://flag@h/d' });
    expect(run(['--quiet'], { TIDINGS_QUIET: 'false' }).options.log).toEqual({ requests: false, deliveries: true });
    expect(run(['--metrics'], { TIDINGS_METRICS: 'false' }).options.metrics).toBe(true);
    expect(run([], { TIDINGS_METRICS: 'on' }).options.metrics).toBe(true);
    expect(run(['--no-activity'], { TIDINGS_NO_ACTIVITY: 'false' }).options.activity).toBe(false);
    expect(run([], { TIDINGS_NO_ACTIVITY: 'yes' }).options.activity).toBe(false);
  });

  it('refuses values naming the flag or the variable they came from, and never repeats a key', () => {
    const refused = (args: string[], env: NodeJS.ProcessEnv) => {
      try {
        run(args, env);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused([], { TIDINGS_PORT: '65536' })).toMatch(/^TIDINGS_PORT must be a port number/);
    expect(refused(['--port', '3.5'], {})).toMatch(/^--port must be a port number/);
    expect(refused([], { TIDINGS_PROCESSES: '2', TIDINGS_DATABASE_URL: 'x.db' })).toMatch(/^TIDINGS_PROCESSES needs Postgres or MySQL/);
    expect(refused(['--processes', '65'], { TIDINGS_DATABASE_URL: 'postgres://u@h/d' })).toMatch(/^--processes must be a whole number from 1 to 64/);
    expect(refused([], { TIDINGS_SCHEMA: 'notify' })).toMatch(/^TIDINGS_SCHEMA needs Postgres/);
    expect(refused([], { TIDINGS_LEASE_MS: '99' })).toMatch(/^TIDINGS_LEASE_MS must be a whole number of milliseconds/);
    expect(refused([], { TIDINGS_NO_INBOX_HASH: 'sometimes' })).toMatch(/^TIDINGS_NO_INBOX_HASH must be true or false/);
    expect(refused([], { TIDINGS_HOST: 'two words' })).toBe('TIDINGS_HOST must not contain spaces');
    expect(refused(['--api-key', ''], {})).toBe('--api-key needs a value');
    expect(refused(['--api-key', 'secret key'], {})).not.toContain('secret');
    expect(refused(['--quiet=yes'], {})).toBe('--quiet takes no value');
    expect(refused(['--metrics'], { TIDINGS_PROCESSES: '2', TIDINGS_DATABASE_URL: 'postgres://u@h/d' })).toMatch(/^--metrics needs --processes 1: /);
    expect(refused(['--previous-api-key', 'tid_old'], {})).toMatch(/^--previous-api-key needs --previous-api-key-until/);
    expect(refused([], { TIDINGS_PREVIOUS_API_KEY: 'tid_old', TIDINGS_PREVIOUS_API_KEY_UNTIL: 'next week' })).toMatch(/^TIDINGS_PREVIOUS_API_KEY_UNTIL must be an ISO 8601 date-time/);
    expect(refused(['--previous-api-key-until', '2026-07-01T12:00:00Z'], {})).toMatch(/^--previous-api-key-until needs --previous-api-key/);
    expect(refused(['serve'], {})).toBe('Unexpected argument serve: tidings serve takes options only');
  });
});

describe('a running server', { timeout: 180_000 }, () => {
  it('honours TIDINGS_PORT, TIDINGS_API_KEY and TIDINGS_DATABASE_URL, and logs a line per request without the query string or the key', async () => {
    const db = join(dir, 'env', 'tidings.db');
    // A port found free may be taken by another process before the server binds it: then another one.
    const start = async (attempt: number): Promise<{ child: ReturnType<typeof spawnTs>; url: string; wanted: number }> => {
      const wanted = (await port()).port;
      const child = serveCli([], { TIDINGS_PORT: String(wanted), TIDINGS_API_KEY: 'tid_from_env', TIDINGS_DATABASE_URL: db });
      try {
        return { child, url: await listening(child), wanted };
      } catch (error) {
        if (attempt < 3 && child.output().includes('is already in use')) return start(attempt + 1);
        throw error;
      }
    };
    const { child, url, wanted } = await start(0);
    expect(url).toBe(`http://127.0.0.1:${wanted}`);
    expect(existsSync(db)).toBe(true);
    expect((await call(url, 'tid_from_env', 'GET', '/v1/integrations/active?token=sekrit')).status).toBe(200);
    expect((await call(url, 'another', 'GET', '/v1/integrations/active')).status).toBe(401);
    await waitForOutput(child, /^\{.*"method":"GET","path":"\/v1\/integrations\/active","status":200,"ms":\d+,"msg":"request"\}\n/m);
    await waitForOutput(child, /^\{.*"method":"GET","path":"\/v1\/integrations\/active","status":401,"ms":\d+,"msg":"request"\}\n/m);
    expect(child.output()).not.toContain('sekrit');
    expect(child.output()).not.toContain('tid_from_env');
  });

  it('a flag wins over its variable: --port over a busy TIDINGS_PORT, --api-key over TIDINGS_API_KEY, --db over TIDINGS_DATABASE_URL', async () => {
    const busy = await port(true);
    try {
      const db = join(dir, 'flag', 'tidings.db');
      const child = serveCli(['--port', '0', '--api-key', 'flag-key', '--db', db], { TIDINGS_PORT: String(busy.port), TIDINGS_API_KEY: 'env-key', TIDINGS_DATABASE_URL: join(dir, 'env-unused', 'tidings.db') });
      const url = await listening(child);
      expect(url).not.toBe(`http://127.0.0.1:${busy.port}`);
      expect((await call(url, 'flag-key', 'GET', '/v1/integrations/active')).status).toBe(200);
      expect((await call(url, 'env-key', 'GET', '/v1/integrations/active')).status).toBe(401);
      expect(existsSync(db)).toBe(true);
      expect(existsSync(join(dir, 'env-unused'))).toBe(false);
    } finally {
      await busy.release();
    }
  });

  it('keeps .tidings/ out of git: a .gitignore of "*" beside the key, and a user\'s own one left alone', async () => {
    const work = join(dir, 'project');
    mkdirSync(work);
    const child = serveIn(work, ['--port', '0']);
    await waitForOutput(child, /Application identifier .*\n/);
    const key = /API key \(new, kept in \S+\): (\S+)/.exec(child.output())![1]!;
    expect(readFileSync(join(work, '.tidings', 'api-key'), 'utf8').trim()).toBe(key);
    expect(readFileSync(join(work, '.tidings', '.gitignore'), 'utf8')).toBe('*\n');
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);

    const mine = join(dir, 'own-gitignore');
    mkdirSync(join(mine, '.tidings'), { recursive: true });
    writeFileSync(join(mine, '.tidings', '.gitignore'), 'tidings.db\napi-key\n');
    const again = serveIn(mine, ['--port', '0']);
    await waitForOutput(again, /Application identifier .*\n/);
    expect(readFileSync(join(mine, '.tidings', '.gitignore'), 'utf8')).toBe('tidings.db\napi-key\n');
    expect(existsSync(join(mine, '.tidings', 'api-key'))).toBe(true);
  });

  it('logs a line per delivery not sent (no email integration) and per delivery that failed, with transaction, subscriber, channel and reason', async () => {
    const child = serveCli(['--port', '0', '--api-key', 'k', '--db', join(dir, 'deliveries', 'tidings.db')]);
    const url = await listening(child);
    const workflow = { name: 'welcome', triggers: [{ identifier: 'welcome' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }, { template: { type: 'chat', content: 'Hi' } }] };
    expect((await call(url, 'k', 'POST', '/v1/workflows', workflow)).status).toBe(201);
    // A chat integration whose webhook is on loopback, which webhook providers refuse: a failed delivery.
    const integration = { providerId: 'chat-webhook', channel: 'chat', credentials: { webhookUrl: 'http://127.0.0.1:9/hook' }, active: true, check: false };
    expect((await call(url, 'k', 'POST', '/v1/integrations', integration)).status).toBe(201);
    const triggered = await call(url, 'k', 'POST', '/v1/events/trigger', { name: 'welcome', to: { subscriberId: 'ann', email: 'ann@example.com' }, payload: {} });
    expect(triggered.status).toBe(201);
    const transactionId = String(triggered.body!.data['transactionId']);
    await waitForOutput(child, new RegExp(`^\\{.*"transactionId":"${transactionId}","subscriberId":"ann","channel":"email","reason":"[^"\\n]*email[^"\\n]*","msg":"delivery not_sent"\\}\\n`, 'm'));
    await waitForOutput(child, new RegExp(`^\\{.*"transactionId":"${transactionId}","subscriberId":"ann","channel":"chat","reason":"refused to connect: [^\\n]*","msg":"delivery failed"\\}\\n`, 'm'));
    await waitForOutput(child, new RegExp(`^\\{.*"method":"POST","path":"/v1/events/trigger","status":201,"ms":\\d+,"transactionId":"${transactionId}","msg":"request"\\}\\n`, 'm'));
    expect(child.output()).not.toContain('ApiKey');
  });

  it('TIDINGS_QUIET turns the request lines off; delivery lines stay', async () => {
    const child = serveCli(['--port', '0', '--db', join(dir, 'quiet', 'tidings.db')], { TIDINGS_QUIET: 'true', TIDINGS_API_KEY: 'k' });
    const url = await listening(child);
    expect((await call(url, 'k', 'POST', '/v1/workflows', { name: 'sms', triggers: [{ identifier: 'sms' }], steps: [{ template: { type: 'sms', content: 'Hi' } }] })).status).toBe(201);
    expect((await call(url, 'k', 'POST', '/v1/events/trigger', { name: 'sms', to: 'bob', payload: {} })).status).toBe(201);
    await waitForOutput(child, /^\{.*"subscriberId":"bob","channel":"sms","reason":".+","msg":"delivery not_sent"\}\n/m);
    expect(child.output()).not.toContain('"msg":"request"');
  });
});

describe('log lines', () => {
  it('request paths lose their query string; each engine line is one JSON object with the transaction id, whatever the values hold', async () => {
    expect(loggedPath('/v1/inbox/notifications?token=abc#x')).toBe('/v1/inbox/notifications');
    expect(loggedPath('?a=b')).toBe('/');
    const lines: string[] = [];
    const handlers = new Map<string, (payload: never) => void>();
    const events = { on: (name: string, handler: (payload: never) => void) => handlers.set(name, handler), off: (name: string) => handlers.delete(name) };
    const stop = engineLogging({ events } as never, serveLogger({ write: (line: string) => void lines.push(line) }));
    const message = { transactionId: 'tx 1', subscriberId: 'ann\n"bob"', channel: 'email' };
    handlers.get('message.warning')!({ message, reason: 'no active email integration' } as never);
    handlers.get('message.failed')!({ message: { ...message, transactionId: 'tx2', subscriberId: 'ann' }, error: 'line one\nline two' } as never);
    handlers.get('job.failed')!({ job: { transactionId: 'tx3', subscriberId: 'cy', kind: 'walk' }, error: 'it threw' } as never);
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'delivery not_sent', transactionId: 'tx 1', subscriberId: 'ann\n"bob"', channel: 'email', reason: 'no active email integration' }),
      expect.objectContaining({ level: 'warn', msg: 'delivery failed', transactionId: 'tx2', subscriberId: 'ann', channel: 'email', reason: 'line one\nline two' }),
      expect.objectContaining({ level: 'error', msg: 'job failed', transactionId: 'tx3', subscriberId: 'cy', kind: 'walk', error: 'it threw' }),
    ]);
    stop();
    expect(handlers.size).toBe(0);
  });
});
