import type { RecordBackend, RecordInput, RecordQuery, RecordWhere, StoredRecord } from '@tidings/core/internal';
import { findRecords, recordMeets, recordOrder } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

/**
 * The record store: env|table → key → record, each write undone with its transaction. An index of
 * the first index value (env|table|i1 → its key, or a Map of keys) serves finds by it without reading the whole
 * table (a batch's preferences, a workflow by identifier); finds by key read only those keys.
 */
export function recordStore(t: Tables): RecordBackend {
  const table = (env: string, name: string) => t.records.get(k(env, name));
  const byI1 = (env: string, name: string, i1: string) => k(k(env, name), i1);
  const out = (record: StoredRecord): StoredRecord => ({ ...record, doc: t.copy(record.doc) });

  // An index value held by one record (most: a notification's id) maps to its key alone; a second
  // record makes it a Map of keys. A Map per record was most of what writing one cost.
  function index(value: string, key: string): void {
    const held = t.recordsByI1.get(value);
    if (held === undefined) t.put(t.recordsByI1, value, key);
    else if (typeof held === 'string') {
      if (held !== key) t.put(t.recordsByI1, value, new Map([[held, true as const], [key, true as const]]));
    } else t.put(held, key, true);
  }
  function unindex(value: string, key: string): void {
    const held = t.recordsByI1.get(value);
    if (held === key) t.del(t.recordsByI1, value);
    else if (held !== undefined && typeof held !== 'string') t.del(held, key);
  }
  const keysOf = (value: string): Iterable<string> => {
    const held = t.recordsByI1.get(value);
    return held === undefined ? [] : typeof held === 'string' ? [held] : held.keys();
  };

  function write(env: string, name: string, rows: Map<string, StoredRecord>, input: RecordInput): void {
    const record: StoredRecord = { key: input.key, i1: input.i1 ?? null, i2: input.i2 ?? null, i3: input.i3 ?? null, sort: input.sort ?? '', doc: t.copy(input.doc) };
    const old = rows.get(record.key);
    if (old?.i1 != null && old.i1 !== record.i1) unindex(byI1(env, name, old.i1), record.key);
    if (record.i1 !== null && old?.i1 !== record.i1) index(byI1(env, name, record.i1), record.key);
    t.put(rows, record.key, record);
  }

  function remove(env: string, name: string, rows: Map<string, StoredRecord>, key: string): boolean {
    const old = rows.get(key);
    if (!old) return false;
    if (old.i1 !== null) unindex(byI1(env, name, old.i1), key);
    return t.del(rows, key);
  }

  /** The records a find may match: those of its keys or `i1` values when it names them, else the whole table. */
  function candidates(env: string, name: string, where: RecordWhere): Iterable<StoredRecord> {
    const rows = table(env, name);
    if (!rows) return [];
    const keys = where.key;
    if (typeof keys === 'string' || Array.isArray(keys)) return (typeof keys === 'string' ? [keys] : [...new Set(keys as readonly string[])]).flatMap((key) => rows.get(key) ?? []);
    const i1 = where.i1;
    if (typeof i1 !== 'string' && !Array.isArray(i1)) return rows.values();
    const out: StoredRecord[] = [];
    for (const value of new Set(typeof i1 === 'string' ? [i1] : (i1 as readonly string[]))) for (const key of keysOf(byI1(env, name, value))) out.push(rows.get(key)!);
    return out;
  }

  const select = (env: string, name: string, query: RecordQuery) => findRecords(candidates(env, name, query), query);

  return {
    async put(env, name, records) {
      if (records.length === 0) return;
      const rows = t.inner(t.records, k(env, name));
      for (const record of records) write(env, name, rows, record);
    },
    async insertNew(env, name, records) {
      if (records.length === 0) return [];
      const rows = t.inner(t.records, k(env, name));
      const inserted: string[] = [];
      for (const record of records) {
        if (rows.has(record.key)) continue;
        write(env, name, rows, record);
        inserted.push(record.key);
      }
      return inserted;
    },
    // Core's `get` reads through `find` (a filter and a sort); by the key alone a Map lookup is enough.
    async get(env, name, keys) {
      const rows = table(env, name);
      if (!rows) return [];
      return [...new Set(keys)].flatMap((key) => {
        const found = rows.get(key);
        return found ? [out(found)] : [];
      });
    },
    find: async (env, name, query) => select(env, name, query).map(out),
    async count(env, name, where) {
      let n = 0;
      for (const record of candidates(env, name, where)) if (recordMeets(record, where)) n++;
      return n;
    },
    async deleteWhere(env, name, { limit, ...where }) {
      const rows = table(env, name);
      if (!rows) return [];
      const doomed = select(env, name, { ...where, ...(limit !== undefined && { limit }) });
      for (const record of doomed) remove(env, name, rows, record.key);
      return doomed.sort(recordOrder);
    },
  };
}
