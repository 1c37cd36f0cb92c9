import type { SqlStorage } from '@tidings/sql';
import type { Storage } from '@tidings/core';

/** The base tables that hold an environment's rows (the older per-kind tables are views of `tidings_records` since 0016). */
const TABLES = ['tidings_records', 'tidings_record_subscribers', 'tidings_record_notifications', 'tidings_record_traces', 'tidings_jobs', 'tidings_messages', 'tidings_topic_members'] as const;

/** Every row of an environment as the SQL tables hold it, as text (the conformance suite's `rawDump`). */
export async function rawSqlDump(storage: Storage, env: string): Promise<string> {
  const { db } = storage as SqlStorage;
  const rows: unknown[] = [];
  for (const table of TABLES) rows.push(...(await db.selectFrom(table).selectAll().where('env', '=', env).execute()));
  return JSON.stringify(rows);
}
