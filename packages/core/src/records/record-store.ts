import { foundInOrder } from '../util/found-in-order.js';

/**
 * One record of the record store: a JSON document under a key, unique in its (environment, table),
 * with up to three index values (or null) and a sort value that finds filter and order on. Every
 * value is compared in byte order of its text.
 */
export interface StoredRecord {
  readonly key: string;
  readonly i1: string | null;
  readonly i2: string | null;
  readonly i3: string | null;
  /** What finds order by, then by key; empty when the table does not order its records. */
  readonly sort: string;
  /** JSON data, read back as written. */
  readonly doc: unknown;
}

/** A record to store: index values left out are null, a sort value left out is empty. */
export interface RecordInput {
  readonly key: string;
  readonly i1?: string | null;
  readonly i2?: string | null;
  readonly i3?: string | null;
  readonly sort?: string;
  readonly doc: unknown;
}

/** Bounds on a column's value; a null value is outside every range. */
export interface RecordRange {
  readonly gt?: string;
  readonly gte?: string;
  readonly lt?: string;
  readonly lte?: string;
}

/**
 * What a column must hold: this value (null: no value), one of these values (an empty list matches
 * nothing), or a value within the range.
 */
export type RecordMatch = string | null | readonly string[] | RecordRange;

/** Conditions on the columns, all of which a record meets; none matches every record of the table. */
export interface RecordWhere {
  readonly key?: string | readonly string[] | RecordRange;
  readonly i1?: RecordMatch;
  readonly i2?: RecordMatch;
  readonly i3?: RecordMatch;
  readonly sort?: string | readonly string[] | RecordRange;
}

/** A find: records meeting `where`, ordered by (sort, key). */
export interface RecordQuery extends RecordWhere {
  /** @default 'asc' */
  readonly order?: 'asc' | 'desc';
  /**
   * Only records strictly after this position in the query's order: the (sort, key) of the last
   * record of the previous page, so pages stay stable while records are added.
   */
  readonly after?: { readonly sort: string; readonly key: string };
  /** Every match when absent. */
  readonly limit?: number;
}

/**
 * The generic part of the Storage port: keyed JSON records in named tables, for the repositories
 * core writes once over it (`records/`). Each method is one round trip (batches split only at the
 * backend's parameter limit), scoped to one environment and table, and atomic on its own; several
 * calls are atomic together inside `transaction`. A backend writes the five methods of
 * `RecordBackend`; `get` and `delete` are core's over them unless it has faster ones.
 */
export interface RecordStore {
  /** Stores each record whole, replacing the one with its key; the last of a batch's duplicates wins. */
  put(env: string, table: string, records: readonly RecordInput[]): Promise<void>;
  /**
   * Stores the records whose key is not stored yet (by a stored record or an earlier one of the
   * batch) and returns their keys in input order; the others store nothing. Of racing inserts of one
   * key exactly one wins.
   */
  insertNew(env: string, table: string, records: readonly RecordInput[]): Promise<string[]>;
  /** The records with these keys, in the order of `keys` (each once); missing ones are left out. */
  get(env: string, table: string, keys: readonly string[]): Promise<StoredRecord[]>;
  /** The documents of `get`'s records, alone: what most reads by key want (a backend need not read the index values). */
  getDocs(env: string, table: string, keys: readonly string[]): Promise<unknown[]>;
  find(env: string, table: string, query: RecordQuery): Promise<StoredRecord[]>;
  count(env: string, table: string, where: RecordWhere): Promise<number>;
  /** Removes the records with these keys; returns how many there were. */
  delete(env: string, table: string, keys: readonly string[]): Promise<number>;
  /**
   * Removes the records meeting `where`, the first `limit` of them in (sort, key) order when given;
   * returns them as they were, in that order.
   */
  deleteWhere(env: string, table: string, where: RecordWhere & { readonly limit?: number }): Promise<StoredRecord[]>;
}

/** What a backend implements of the record store: five methods, and optionally faster `get`, `getDocs` and `delete` (the suite holds them to core's). */
export type RecordBackend = Omit<RecordStore, 'get' | 'getDocs' | 'delete'> & Partial<Pick<RecordStore, 'get' | 'getDocs' | 'delete'>>;

/** The records with these keys in the order of `keys` (each once): core's `get`, over `find`. */
export async function getByFind(backend: Pick<RecordStore, 'find'>, env: string, table: string, keys: readonly string[]): Promise<StoredRecord[]> {
  const unique = [...new Set(keys)];
  if (unique.length === 0) return [];
  const found = new Map((await backend.find(env, table, { key: unique })).map((record) => [record.key, record] as const));
  return foundInOrder(unique, found);
}

/** Core's `delete`, over `deleteWhere`. */
export async function deleteByWhere(backend: Pick<RecordStore, 'deleteWhere'>, env: string, table: string, keys: readonly string[]): Promise<number> {
  return keys.length === 0 ? 0 : (await backend.deleteWhere(env, table, { key: [...new Set(keys)] })).length;
}

/** Core's `getDocs`, over `get`. */
export async function docsByGet(store: Pick<RecordStore, 'get'>, env: string, table: string, keys: readonly string[]): Promise<unknown[]> {
  return (await store.get(env, table, keys)).map((record) => record.doc);
}

/** The whole record store over a backend's: its own `get`, `getDocs` and `delete` where it has them, else core's. */
export function recordStoreOver(backend: RecordBackend): RecordStore {
  if (backend.get && backend.getDocs && backend.delete) return backend as RecordStore;
  const get: RecordStore['get'] = backend.get ? (env, table, keys) => backend.get!(env, table, keys) : (env, table, keys) => getByFind(backend, env, table, keys);
  return {
    put: (env, table, records) => backend.put(env, table, records),
    insertNew: (env, table, records) => backend.insertNew(env, table, records),
    find: (env, table, query) => backend.find(env, table, query),
    count: (env, table, where) => backend.count(env, table, where),
    deleteWhere: (env, table, where) => backend.deleteWhere(env, table, where),
    get,
    getDocs: backend.getDocs ? (env, table, keys) => backend.getDocs!(env, table, keys) : (env, table, keys) => docsByGet({ get }, env, table, keys),
    delete: backend.delete ? (env, table, keys) => backend.delete!(env, table, keys) : (env, table, keys) => deleteByWhere(backend, env, table, keys),
  };
}
