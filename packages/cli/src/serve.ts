import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Server as HttpServer } from 'node:http';
import { serve as serveNode } from '@hono/node-server';
import { createTidings, type CodeWorkflow, type Storage, type Tidings } from '@tidings/core';
import { chatWebhookProvider, consoleProviders, discordProvider, msTeamsProvider, pushWebhookProvider, serviceProviders, slackProvider, smtpProvider, webhookTransport, httpStepTransport } from '@tidings/providers';
import { activityApp, createHttpApp, type HttpApp } from '@tidings/http';
import { loadWorkflowsModule } from './workflows-module.js';
import { engineLogging, requestLogging, serveLogger, type Logger } from './serve-log.js';
import { prometheusMetrics } from './prometheus-metrics.js';
import { readOnlyFetch } from './read-only.js';
import type { DestinationStream } from 'pino';

export interface ServeOptions {
  /** @default 3000 (0 picks a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** SQLite file: the one the docs' apps use, so `/activity` shows what such an app did. @default '.tidings/tidings.db' */
  db?: string;
  /**
   * Open the SQLite file read-only, to look at a database another process (an app that uses the
   * library) writes while it runs: the activity page and the API's reads answer from it; no job runs
   * here, migrations are left to the writer, and every request other than GET, HEAD or OPTIONS is
   * refused with a 405. Without it, a file another process writes is refused at start (SQLite takes
   * one writing process). SQLite only. @default false
   */
  readOnly?: boolean;
  /** Postgres connection string; used instead of SQLite when given. */
  postgres?: string;
  /** MySQL or MariaDB connection URL (`mysql://`, or `mariadb://`); used instead of SQLite when given. */
  mysql?: string;
  /** The Postgres schema that holds Tidings' tables (created when missing). @default the database's default (public) */
  schema?: string;
  /** The API key; generated and kept in `<db folder>/api-key` on first run when absent. */
  apiKey?: string;
  environmentId?: string;
  /**
   * Store in-app-only walks inside the trigger request's transaction, so the messages exist when the
   * response is sent (see the engine's `inlineInApp`). Walks with a delay, digest, provider step or
   * schedule hold still go through the job loop. @default true
   */
  inlineInApp?: boolean;
  /**
   * Hosts, addresses or CIDR ranges webhook and hosted-service providers may reach besides public addresses
   * (loopback, private and link-local ones are refused by default). @default []
   */
  webhookAllow?: readonly string[];
  /**
   * The public identifier Novu's Inbox client (`applicationIdentifier`) opens sessions with; generated
   * and kept beside the API key as `application-identifier` on first run when absent.
   */
  applicationIdentifier?: string;
  /** The API key before a rotation: Inbox hashes and sessions made with it work until `until`. */
  previousInboxKey?: { key: string; until: string };
  /**
   * Require the subscriber's HMAC hash to open an Inbox session. Off, anyone who knows the application
   * identifier can read any subscriber's inbox; the CLI warns at start. @default true
   */
  inboxHash?: boolean;
  /**
   * How long a claimed job stays leased to its process between renewals: after a process dies
   * (SIGKILL, a lost machine) another takes its jobs over once this has passed. @default 30_000
   */
  leaseMs?: number;
  /** How long `close()` waits for requests and jobs in flight before it cuts them. @default 5_000 */
  graceMs?: number;
  /**
   * JSON lines written to stdout, or to `destination` (formats in `serve-log.ts`): `requests`, one per
   * HTTP request (method, path without the query string, status, duration, and the transaction ids a
   * trigger answered with); `deliveries`, one per delivery that failed or was not sent and per job that
   * gave up, with its transaction id. `tidings serve` turns both on (`--quiet` turns requests off).
   * @default both off
   */
  log?: { requests?: boolean; deliveries?: boolean; destination?: DestinationStream };
  /**
   * Serve the engine's metrics at `GET /metrics` in Prometheus' text format (OpenTelemetry's
   * Prometheus exporter), never with the API key: the metrics hold counts and latencies by status,
   * channel, provider and job kind, no ids, addresses or content. `true` answers anyone who reaches
   * the port; `{ token }` answers only `Authorization: Bearer <token>` (a 401, which counts nothing,
   * otherwise). The storage gauges are counted at most every 5 s whatever the number of scrapes.
   * @default false
   */
  metrics?: boolean | { token: string };
  /**
   * Workflows written in code (`@tidings/framework`), or the path of a module whose exports are
   * loaded for them (what `--workflows` gives; every process of a cluster loads it).
   */
  workflows?: string | readonly CodeWorkflow[];
  /**
   * Serve the activity page at `/activity` (see `activityApp`): its files are public, its data needs
   * the API key. @default true
   */
  activity?: boolean;
  /**
   * Clients reach the server only through a proxy that sets `X-Forwarded-Proto` and
   * `X-Forwarded-Host`, overwriting what clients send (see `createHttpApp`'s `trustProxy`): status
   * callbacks whose signature covers the URL (Twilio's) are checked against the URL they name.
   * @default false
   */
  trustProxy?: boolean;
  /**
   * The address people reach the server at: signed preference and unsubscribe links point there
   * (`createTidings`' `links.baseUrl`), and emails carry one-click unsubscribe headers.
   * @default none: no links, no unsubscribe headers
   */
  publicUrl?: string;
}

/** Start-up failed for a reason one line can say (a database that is not there, a port in use). */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A value kept in a file beside the database: read when there, else made and written (owner-only). */
function loadOrCreate(file: string, make: () => string): { key: string; created: boolean } {
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), created: false };
  const key = make();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, created: true };
}

/**
 * The folder Tidings keeps its key and database in (`.tidings/`) gets a `.gitignore` that ignores
 * everything, so the API key is never committed; one already there (the user's) is left alone, never
 * overwritten. A folder of another name, given with `--db`, is the user's to look after.
 */
function ignoreInGit(folder: string): void {
  if (basename(folder) !== '.tidings' || !existsSync(folder)) return;
  try {
    writeFileSync(join(folder, '.gitignore'), '*\n', { flag: 'wx' });
  } catch {
    // Already there (ours from an earlier start, another process's, or the user's): kept as it is. A
    // folder that cannot be written (mounted read-only with its key) is no reason to refuse to serve.
  }
}

/**
 * Loads the storage package of the backend chosen, only then: the app factory needs neither, so an
 * app that mounts `createHttpApp` installs no database driver it does not use. A package that is not
 * installed is a StartupError saying what to install.
 */
export async function backendModule<T>(load: () => Promise<T>, packages: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec(reason(error))?.[1];
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && missing) {
      throw new StartupError(`this backend needs ${missing}, which is not installed: npm install ${packages}`);
    }
    throw error;
  }
}

async function openStorage(options: ServeOptions, db: string): Promise<{ storage: Storage; where: string }> {
  if (options.readOnly && (options.postgres || options.mysql)) throw new StartupError('read-only serving is for a SQLite file another process writes: on Postgres or MySQL, run another tidings serve beside it');
  if (options.postgres) {
    const { postgresAddress, postgresStorage } = await backendModule(() => import('@tidings/postgres'), '@tidings/postgres pg');
    const address = postgresAddress(options.postgres);
    if (address === null) throw new StartupError('--postgres must be a connection URL (postgres://user@host:5432/db)');
    const storage = postgresStorage({ connectionString: options.postgres, ...(options.schema && { schema: options.schema }) });
    return { storage, where: `Postgres at ${address}${options.schema ? `, schema ${options.schema}` : ''}` };
  }
  if (options.mysql) {
    const { createMysqlStorage, mysqlAddress } = await backendModule(() => import('@tidings/mysql'), '@tidings/mysql mysql2');
    const address = mysqlAddress(options.mysql);
    if (address === null) throw new StartupError('--mysql must be a connection URL (mysql://user@host:3306/db)');
    // mysql2 reads mysql:// URLs; mariadb:// names the same server.
    return { storage: createMysqlStorage({ url: options.mysql.replace(/^mariadb:/i, 'mysql:') }), where: `MySQL at ${address}` };
  }
  const { sqliteStorage } = await backendModule(() => import('@tidings/sqlite'), '@tidings/sqlite better-sqlite3');
  try {
    const readOnly = options.readOnly ?? false;
    return { storage: sqliteStorage({ filename: db, readOnly }), where: `the SQLite database ${db}${readOnly ? ' (read-only)' : ''}` };
  } catch (error) {
    throw new StartupError(reason(error));
  }
}

/**
 * Applies the database's migrations and reads from it (through an engine made only for that, which
 * starts nothing) before anything listens: a database that cannot be used fails start-up.
 */
async function checkStorage(storage: Storage, where: string, options: ServeOptions): Promise<void> {
  try {
    // A read-only file is migrated by its writer.
    const migrate = options.readOnly ? undefined : (storage as Storage & { migrate?: () => Promise<unknown> }).migrate;
    if (migrate) await migrate.call(storage);
    await createTidings({ storage, ...(options.environmentId && { environmentId: options.environmentId }) }).probeStorage();
  } catch (error) {
    await storage.close().catch(() => undefined);
    throw new StartupError(`cannot use ${where}: ${reason(error)}`);
  }
}

type Fetch = ReturnType<typeof createHttpApp>['fetch'];

async function listen(fetch: Fetch, port: number, host: string, logger: Logger | null) {
  return new Promise<ReturnType<typeof serveNode>>((resolve, reject) => {
    const server = serveNode({ fetch: logger ? requestLogging(fetch, logger) : fetch, port, hostname: host }, () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new StartupError(`port ${port} on ${host} is already in use`));
      else if (error.code === 'EACCES') reject(new StartupError(`no permission to listen on port ${port} on ${host}`));
      else if (error.code === 'EADDRNOTAVAIL') reject(new StartupError(`${host} is not an address of this machine`));
      else reject(new StartupError(`cannot listen on ${host}:${port}: ${error.message}`));
    });
  });
}

const sqliteFile = (options: ServeOptions) => options.db ?? '.tidings/tidings.db';

/** The API key and the Inbox's application identifier: as given, else read from (or made into) files beside the database. */
export function serveCredentials(options: ServeOptions) {
  const keyFile = join(options.postgres || options.mysql ? '.tidings' : dirname(sqliteFile(options)), 'api-key');
  const { key: apiKey, created } = options.apiKey !== undefined ? { key: options.apiKey, created: false } : loadOrCreate(keyFile, () => `tid_${randomBytes(24).toString('hex')}`);
  const identifierFile = join(dirname(keyFile), 'application-identifier');
  const applicationIdentifier = options.applicationIdentifier ?? loadOrCreate(identifierFile, () => `app_${randomBytes(12).toString('hex')}`).key;
  ignoreInGit(dirname(keyFile));
  return {
    apiKey,
    /** Where the generated key is kept (null when the key was given). */
    apiKeyFile: options.apiKey !== undefined ? null : keyFile,
    /** True when this start generated the key. */
    apiKeyCreated: created,
    /** The public identifier Novu's Inbox client opens sessions with. */
    applicationIdentifier,
    /** Where it is kept (null when it was given). */
    applicationIdentifierFile: options.applicationIdentifier !== undefined ? null : identifierFile,
  };
}

export type ServeCredentials = ReturnType<typeof serveCredentials>;

/** Opens the database and applies its migrations, for a command that works on it (`tidings workflows`); the caller closes it. */
export async function openDatabase(options: ServeOptions): Promise<Storage> {
  const { storage, where } = await openStorage(options, sqliteFile(options));
  await checkStorage(storage, where, options);
  return storage;
}

/** Opens the database, applies its migrations and closes it again: what a start-up would find, said once. */
export async function checkDatabase(options: ServeOptions): Promise<void> {
  await (await openDatabase(options)).close();
}

/** A running server (`serve()`): where it listens, its credentials, its engine and app, and `close()`. */
export type ServeHandle = ServeCredentials & {
  readonly url: string;
  readonly tidings: Tidings;
  readonly app: HttpApp;
  /**
   * Stops accepting connections, lets requests in flight finish for up to `graceMs` and then cuts
   * the rest (live streams included), stops the job loop (its jobs finish or are handed back), and
   * closes the storage.
   */
  close(): Promise<void>;
};

/**
 * Runs the HTTP API with a job loop on SQLite (or Postgres); resolves once it listens. Fails with a
 * `StartupError` (one line) when the database cannot be used or the port cannot be had.
 */
export async function serve(options: ServeOptions = {}): Promise<ServeHandle> {
  if (typeof options.metrics === 'object' && !/^\S+$/.test(options.metrics.token)) throw new StartupError('the metrics token must be a non-empty string without spaces');
  const workflows = typeof options.workflows === 'string' ? await loadWorkflowsModule(options.workflows) : options.workflows ?? [];
  const { storage, where } = await openStorage(options, sqliteFile(options));
  await checkStorage(storage, where, options);
  const credentials = serveCredentials(options);
  const { apiKey, applicationIdentifier } = credentials;
  const network = { allow: [...(options.webhookAllow ?? [])] };
  const logger = options.log?.requests || options.log?.deliveries ? serveLogger(options.log.destination) : null;
  const metrics = options.metrics ? prometheusMetrics() : null;
  const tidings = createTidings({
    storage,
    inlineInApp: options.inlineInApp ?? true,
    ...(metrics && { meterProvider: metrics.meterProvider }),
    ...(logger && { onError: (error: unknown) => logger.error({ err: error }, 'job loop failed') }),
    workflows,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    ...(options.environmentId && { environmentId: options.environmentId }),
    ...(options.publicUrl && { links: { baseUrl: options.publicUrl } }),
    providers: [
      smtpProvider(),
      chatWebhookProvider({ network }),
      slackProvider({ network }),
      discordProvider({ network }),
      msTeamsProvider({ network }),
      pushWebhookProvider({ network }),
      ...serviceProviders({ network }),
      ...consoleProviders(),
    ],
    webhookTransport: webhookTransport({ network }),
    httpStepTransport: httpStepTransport({ network }),
  });
  const app = createHttpApp({
    environments: [{ tidings, apiKeys: [apiKey], applicationIdentifier, ...(options.previousInboxKey && { previousInboxKey: options.previousInboxKey }) }],
    inbox: { requireSubscriberHash: options.inboxHash ?? true },
    ...(logger && { onError: (error: unknown) => logger.error({ err: error }, 'request failed') }),
    ...(metrics && { metrics: { prometheus: metrics, ...(typeof options.metrics === 'object' && { token: options.metrics.token }) } }),
    ...(options.trustProxy && { trustProxy: true }),
  });
  if (options.activity ?? true) app.route('/activity', activityApp());
  const host = options.host ?? '127.0.0.1';
  let server: ReturnType<typeof serveNode>;
  try {
    server = await listen(options.readOnly ? readOnlyFetch(app.fetch, () => tidings.clock.now()) : app.fetch, options.port ?? 3000, host, options.log?.requests ? logger : null);
  } catch (error) {
    await metrics?.shutdown().catch(() => undefined);
    await storage.close().catch(() => undefined);
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port ?? 3000;
  const sockets = app.attachInboxSockets(server as unknown as HttpServer);
  if (options.log?.deliveries && logger) engineLogging(tidings, logger);
  // Reading only: the writing process runs the jobs.
  if (!options.readOnly) tidings.start();
  const graceMs = options.graceMs ?? 5_000;
  return {
    url: `http://${host}:${port}`,
    ...credentials,
    tidings,
    app,
    /**
     * Stops accepting connections, lets requests in flight finish for up to `graceMs` and then cuts
     * the rest (live streams included), stops the job loop (its jobs finish or are handed back), and
     * closes the storage.
     */
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      app.closeLiveStreams();
      await sockets.close();
      const nodeServer = server as unknown as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
      // Connections go idle as their responses finish (live streams just ended): close each then,
      // instead of waiting for keep-alive timeouts; cut whatever is left after the grace.
      nodeServer.closeIdleConnections?.();
      const sweep = setInterval(() => nodeServer.closeIdleConnections?.(), 50);
      const cut = setTimeout(() => nodeServer.closeAllConnections?.(), graceMs);
      await closed;
      clearInterval(sweep);
      clearTimeout(cut);
      await tidings.stop();
      await metrics?.shutdown();
      await storage.close();
    },
  };
}
