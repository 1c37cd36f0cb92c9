import Database from 'better-sqlite3';
import pg from 'pg';

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

export function sqliteBaseline(filename: string): Baseline {
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`create table subscribers (subscriber_id text primary key, doc text not null);
           create table messages (id text primary key, subscriber_id text not null, created_at text not null, doc text not null);
           create index messages_feed on messages (subscriber_id, created_at desc, id desc);`);
  const upsert = db.prepare('insert into subscribers (subscriber_id, doc) values (?, ?) on conflict (subscriber_id) do update set doc = excluded.doc');
  const insert = db.prepare('insert into messages (id, subscriber_id, created_at, doc) values (?, ?, ?, ?)');
  let n = 0;
  const call = db.transaction((perEvent: number) => {
    const now = new Date().toISOString();
    for (let e = 0; e < 100; e++) {
      n++;
      for (let k = 0; k < perEvent; k++) {
        const subscriberId = `b-${n}-${k}`;
        upsert.run(subscriberId, JSON.stringify({ subscriberId, firstName: `S${n}`, updatedAt: now }));
        insert.run(`${n}-${k}`, subscriberId, now, JSON.stringify({ subscriberId, content: content(n), createdAt: now }));
      }
    }
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
  await pool.query(`create schema if not exists "${schema}"`);
  await pool.query(`create table "${schema}".subscribers (subscriber_id text primary key, doc jsonb not null);
                    create table "${schema}".messages (id text primary key, subscriber_id text not null, created_at text not null, doc jsonb not null)`);
  let n = 0;
  return {
    async call(_c, perEvent) {
      const now = new Date().toISOString();
      const subs: unknown[] = [];
      const msgs: unknown[] = [];
      for (let e = 0; e < 100; e++) {
        n++;
        for (let k = 0; k < perEvent; k++) {
          const subscriberId = `b-${n}-${k}`;
          subs.push(subscriberId, JSON.stringify({ subscriberId, firstName: `S${n}`, updatedAt: now }));
          msgs.push(`${n}-${k}`, subscriberId, now, JSON.stringify({ subscriberId, content: content(n), createdAt: now }));
        }
      }
      const rows = (count: number, width: number) => Array.from({ length: count }, (_, i) => `(${Array.from({ length: width }, (_, j) => `$${i * width + j + 1}`).join(',')})`).join(',');
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query(`insert into "${schema}".subscribers values ${rows(subs.length / 2, 2)} on conflict (subscriber_id) do update set doc = excluded.doc`, subs);
        await client.query(`insert into "${schema}".messages values ${rows(msgs.length / 4, 4)}`, msgs);
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
