import type { RecordBackend, RecordInput, RecordQuery, RecordWhere, StoredRecord } from '@tidings/core/internal';
import { findRecords, recordMeets, recordOrder, storedRecord } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

/**
 * The record store: env|table → key → record, each write undone with its transaction. An index of
 * the first index value (env|table|i1 → key → true) serves finds by it without reading the whole
 * table (a batch's preferences, a workflow by identifier); finds by key read only those keys.
 */
export function recordStore(t: Tables): RecordBackend {
  const table = (env: string, name: string) => t.records.get(k(env, name));
  const byI1 = (env: string, name: string, i1: string) => k(k(env, name), i1);
  const out = (record: StoredRecord): StoredRecord => ({ ...record, doc: t.copy(record.doc) });

  function write(env: string, name: string, rows: Map<string, StoredRecord>, input: RecordInput): void {
    const record = storedRecord({ ...input, doc: t.copy(input.doc) });
    const old = rows.get(record.key);
    if (old?.i1 != null && old.i1 !== record.i1) t.del(t.recordsByI1.get(byI1(env, name, old.i1))!, record.key);
    if (record.i1 !== null && old?.i1 !== record.i1) t.put(t.inner(t.recordsByI1, byI1(env, name, record.i1)), record.key, true);
    t.put(rows, record.key, record);
  }

  function remove(env: string, name: string, rows: Map<string, StoredRecord>, key: string): boolean {
    const old = rows.get(key);
    if (!old) return false;
    if (old.i1 !== null) t.del(t.recordsByI1.get(byI1(env, name, old.i1))!, key);
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
    for (const value of new Set(typeof i1 === 'string' ? [i1] : (i1 as readonly string[]))) for (const key of t.recordsByI1.get(byI1(env, name, value))?.keys() ?? []) out.push(rows.get(key)!);
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
