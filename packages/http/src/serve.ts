import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { serve as serveNode } from '@hono/node-server';
import { createTidings, type Storage } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { chatWebhookProvider, consoleProviders, discordProvider, msTeamsProvider, pushWebhookProvider, slackProvider, smtpProvider } from '@tidings/providers';
import { sqliteStorage } from '@tidings/sqlite';
import { createHttpApp } from './app.js';

export interface ServeOptions {
  /** @default 3000 (0 picks a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** SQLite file. @default '.tidings/tidings.db' */
  db?: string;
  /** Postgres connection string; used instead of SQLite when given. */
  postgres?: string;
  /** The API key; generated and kept in `<db folder>/api-key` on first run when absent. */
  apiKey?: string;
  environmentId?: string;
  /**
   * Store in-app-only walks inside the trigger request's transaction, so the messages exist when the
   * response is sent (see the engine's `inlineInApp`). Walks with a delay, digest, provider step or
   * schedule hold still go through the job loop. @default true
   */
  inlineInApp?: boolean;
}

function loadOrCreateKey(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = `tid_${randomBytes(24).toString('hex')}`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Runs the HTTP API with a job loop on SQLite (or Postgres); resolves once it listens. */
export async function serve(options: ServeOptions = {}) {
  const db = options.db ?? '.tidings/tidings.db';
  const storage: Storage = options.postgres ? postgresStorage({ connectionString: options.postgres }) : sqliteStorage({ filename: db });
  const apiKey = options.apiKey ?? loadOrCreateKey(join(options.postgres ? '.tidings' : dirname(db), 'api-key'));
  const tidings = createTidings({
    storage,
    inlineInApp: options.inlineInApp ?? true,
    ...(options.environmentId && { environmentId: options.environmentId }),
    providers: [smtpProvider(), chatWebhookProvider(), slackProvider(), discordProvider(), msTeamsProvider(), pushWebhookProvider(), ...consoleProviders()],
  });
  const app = createHttpApp({ environments: [{ tidings, apiKeys: [apiKey] }] });
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const s = serveNode({ fetch: app.fetch, port: options.port ?? 3000, hostname: host }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port ?? 3000;
  tidings.start();
  return {
    url: `http://${host}:${port}`,
    apiKey,
    tidings,
    app,
    /** Stops accepting requests, lets running jobs finish, closes the storage. */
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.stop();
      await storage.close();
    },
  };
}
