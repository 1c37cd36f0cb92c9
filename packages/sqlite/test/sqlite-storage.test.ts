import { describeStorage } from '@tidings/core/conformance';
import type { SqlStorage } from '@tidings/sql';
import { sql } from 'kysely';
import { sqliteStorage } from '../src/index.js';

describeStorage('sqlite', {
  create: () => sqliteStorage({ filename: ':memory:' }),
  async rawMessage(storage, id) {
    const { rows } = await sql<{ read: number; seen: number; created_at: string }>`select read, seen, created_at from tidings_messages where id = ${id}`.execute((storage as SqlStorage).db);
    const row = rows[0];
    return row ? { read: row.read === 1, seen: row.seen === 1, createdAt: row.created_at } : null;
  },
});
