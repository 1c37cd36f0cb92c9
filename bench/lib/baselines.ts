import Database from 'better-sqlite3';
import pg from 'pg';
import { messageDocument, orderedIds, subscriberDocument } from './documents.js';

/**
 * What the bulk workload does with no engine at all, for the same calls: per event, upsert the
 * subscribers and insert one message each, in one transaction per call of 100 events. This is the
 * floor the engine is measured against ("physical limit" of each backend in this process).
 */
export interface Baseline {
  call(callIndex: number, perEvent: number): Promise<void> | void;
  close(): Promise<void> | void;
}

const content = (n: number) => `Hello S${n}, ${n}`;

export function mapBaseline(): Baseline {
  const subscribers = new Map<string, { subscriberId: string; firstName: string; updatedAt: string }>();
  const messages = new Map<string, { id: string; subscriberId: string; content: string; createdAt: string }>();
  let n = 0;
  return {
    call(_call, perEvent) {
      const now = new Date().toISOString();
      for (let e = 0; e < 100; e++) {
        n++;
        for (let k = 0; k < perEvent; k++) {
          const subscriberId = `b-${n}-${k}`;
          subscribers.set(subscriberId, { subscriberId, firstName: `S${n}`, updatedAt: now });
          const id = `${n}-${k}`;
          messages.set(id, { id, subscriberId, content: content(n), createdAt: now });
        }
      }
    },
    close() {},
  };
}

/** Tables a plain pipeline would keep: subscribers, and messages with the index a feed reads. */
const TABLES_SQL = (prefix: string, json: string) => [
  `create table ${prefix}subscribers (subscriber_id text primary key, doc ${json} not null)`,
  `create table ${prefix}messages (id text primary key, subscriber_id text not null, created_at text not null, doc ${json} not null)`,
  `create index messages_feed on ${prefix}messages (subscriber_id, created_at desc, id desc)`,
];

/** The rows of one call: per event, `perEvent` subscribers and one message each, documents as the engine's. */
function callRows(perEvent: number, next: () => number, ids: ReturnType<typeof orderedIds>) {
  const now = new Date().toISOString();
  const subscribers: [string, string][] = [];
  const messages: [string, string, string, string][] = [];
  for (let e = 0; e < 100; e++) {
    const n = next();
    const notificationId = ids.id();
    for (let k = 0; k < perEvent; k++) {
      const subscriberId = `b-${n}-${k}`;
      const internalId = ids.id();
      subscribers.push([subscriberId, subscriberDocument(subscriberId, internalId, n, now)]);
      messages.push([`${notificationId}000${internalId}`, subscriberId, now, messageDocument(notificationId, subscriberId, n, now)]);
    }
  }
  return { subscribers, messages };
}

export function sqliteBaseline(filename: string): Baseline {
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  for (const statement of TABLES_SQL('', 'text')) db.exec(statement);
  const upsert = db.prepare('insert into subscribers (subscriber_id, doc) values (?, ?) on conflict (subscriber_id) do update set doc = excluded.doc');
  const insert = db.prepare('insert into messages (id, subscriber_id, created_at, doc) values (?, ?, ?, ?)');
  const ids = orderedIds();
  let n = 0;
  const call = db.transaction((perEvent: number) => {
    const rows = callRows(perEvent, () => ++n, ids);
    for (const row of rows.subscribers) upsert.run(...row);
    for (const row of rows.messages) insert.run(...row);
  });
  return {
    call: (_c, perEvent) => call(perEvent),
    close() {
      db.close();
    },
  };
}

export async function postgresBaseline(url: string, schema: string): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const prefix = `"${schema}".`;
  await pool.query(`create schema if not exists "${schema}"`);
  for (const statement of TABLES_SQL(prefix, 'jsonb')) await pool.query(statement);
  const ids = orderedIds();
  let n = 0;
  return {
    async call(_c, perEvent) {
      const rows = callRows(perEvent, () => ++n, ids);
      const client = await pool.connect();
      try {
        await client.query('begin');
        // One statement per table, the columns as arrays (unnest): two round trips for the call's rows.
        await client.query(`insert into ${prefix}subscribers select * from unnest($1::text[], $2::jsonb[]) on conflict (subscriber_id) do update set doc = excluded.doc`, [rows.subscribers.map((r) => r[0]), rows.subscribers.map((r) => r[1])]);
        await client.query(`insert into ${prefix}messages select * from unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])`, [0, 1, 2, 3].map((i) => rows.messages.map((r) => r[i])));
        await client.query('commit');
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.query(`drop schema "${schema}" cascade`);
      await pool.end();
    },
  };
}
