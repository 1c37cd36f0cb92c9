import { randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';
import { afterAll } from 'vitest';

/** `url` with its database replaced by `database`. */
export function urlOf(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs `fn` on one connection to the server at `url`, closed after. */
export async function withAdmin<T>(url: string, fn: (admin: mysql.Connection) => Promise<T>): Promise<T> {
  const admin = await mysql.createConnection(url);
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Fresh databases for one test file (`prefix_<random>`), created when asked for and all dropped
 * after the file's tests: each test keeps its rows to itself (MySQL's databases are Postgres's schemas).
 */
export function freshDatabases(url: string | undefined, prefix: string): () => Promise<string> {
  const databases: string[] = [];
  afterAll(async () => {
    if (!url || databases.length === 0) return;
    await withAdmin(url, async (admin) => {
      for (const database of databases) await admin.query(`drop database if exists \`${database}\``);
    });
  });
  return async () => {
    const database = `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    databases.push(database);
    await withAdmin(url!, (admin) => admin.query(`create database \`${database}\` character set utf8mb4 collate utf8mb4_bin`));
    return urlOf(url!, database);
  };
}
