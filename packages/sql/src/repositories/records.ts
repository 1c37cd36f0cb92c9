import type { RecordBackend, RecordInput, RecordQuery, RecordRange, RecordWhere, StoredRecord } from '@tidings/core/internal';
import { foundInOrder, recordOrder } from '@tidings/core/internal';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { chunk, decodeJson, encodeJson } from '../codec.js';
import type { Db } from '../dialect.js';
import { deleteReturningNow } from '../returning-write.js';
import { reusableQuery } from '../reusable-query.js';
import { rowInserter } from '../row-inserter.js';
import type { Database } from '../tables.js';
import { placeOf, type RecordPlace } from '../record-tables.js';
import type { RepoContext } from './context.js';

type Row = Database['tidings_records'];
type Eb = ExpressionBuilder<Database, 'tidings_records'>;

const COLUMNS = ['env', 'tbl', 'key', 'i1', 'i2', 'i3', 'sort', 'doc'] as const;
const READ = ['key', 'i1', 'i2', 'i3', 'sort', 'doc'] as const;
const MATCHED = ['key', 'i1', 'i2', 'i3', 'sort'] as const;

/** The columns a find may name by a list of values alone, each read by a statement built once. */
const LISTED = ['key', 'i1', 'i2', 'i3'] as const;
type Listed = (typeof LISTED)[number];

type ListArgs = { env: string; tbl: string; values: readonly string[] };

/** The statements each place's records are written with and read by a list of values with, built once per place. */
function placeStatements(place: RecordPlace) {
  const table = place.name as 'tidings_records';
  const columns = place.shared ? COLUMNS : COLUMNS.filter((c) => c !== 'tbl');
  const key: ('env' | 'tbl' | 'key')[] = place.shared ? ['env', 'tbl', 'key'] : ['env', 'key'];
  const inList = (column: Listed, read: readonly (typeof READ)[number][] = READ) =>
    reusableQuery<ListArgs>((db, { env, tbl, values }) => {
      const q = db.selectFrom(table).select(read).where('env', '=', env).where(column, 'in', values);
      return place.shared ? q.where('tbl', '=', tbl) : q;
    });
  return {
    upsert: rowInserter(table, columns, { upsert: { key, update: ['i1', 'i2', 'i3', 'sort', 'doc'] } }),
    /** Documents by keys (`getDocs`): without the index values, a third less to read per row. */
    docsByKey: inList('key', ['key', 'doc']),
    insert: rowInserter(table, columns, { skipTaken: true, returning: 'key' }),
    /** By keys (`get`), or by one index value's list alone (a batch's notifications by id, its subscribers' preferences). */
    byValues: { key: inList('key'), i1: inList('i1'), i2: inList('i2'), i3: inList('i3') },
  };
}

/** The column a find names alone, by a non-empty list, unlimited and from the start; null for any other find. */
function listOnly(query: RecordQuery): Listed | null {
  if (!byList(query)) return null;
  const named = MATCHED.filter((column) => query[column] !== undefined);
  const column = named[0];
  return named.length === 1 && column !== undefined && column !== 'sort' && (query[column] as readonly string[]).length > 0 ? column : null;
}

const statements = new Map<string, ReturnType<typeof placeStatements>>();
const statementsOf = (place: RecordPlace) => {
  let found = statements.get(place.name);
  if (!found) statements.set(place.name, (found = placeStatements(place)));
  return found;
};

const fromRow = (row: Omit<Row, 'env' | 'tbl'>): StoredRecord => ({ key: row.key, i1: row.i1, i2: row.i2, i3: row.i3, sort: row.sort, doc: decodeJson(row.doc) });
const cells = (env: string, table: string, place: RecordPlace, r: RecordInput) =>
  place.shared ? [env, table, r.key, r.i1 ?? null, r.i2 ?? null, r.i3 ?? null, r.sort ?? '', encodeJson(r.doc)] : [env, r.key, r.i1 ?? null, r.i2 ?? null, r.i3 ?? null, r.sort ?? '', encodeJson(r.doc)];

/** The rows of `table` in its place: the environment's, and in the shared table those named `table`. */
const ofTable = (eb: Eb, env: string, table: string, place: RecordPlace): Expression<SqlBool>[] => (place.shared ? [eb('env', '=', env), eb('tbl', '=', table)] : [eb('env', '=', env)]);

/** Whether two records of a batch share a key. */
function hasDuplicates(records: readonly RecordInput[]): boolean {
  const keys = new Set<string>();
  for (const { key } of records) {
    if (keys.has(key)) return true;
    keys.add(key);
  }
  return false;
}

/** The records of a batch each once, the first or the last of a key's duplicates. */
function unique(records: readonly RecordInput[], keep: 'first' | 'last'): readonly RecordInput[] {
  if (!hasDuplicates(records)) return records;
  const byKey = new Map<string, RecordInput>();
  for (const record of records) if (keep === 'last' || !byKey.has(record.key)) byKey.set(record.key, record);
  return [...byKey.values()];
}

function conditions(eb: Eb, where: RecordWhere): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  for (const column of MATCHED) {
    const match = where[column];
    if (match === undefined) continue;
    if (match === null) out.push(eb(column, 'is', null));
    else if (typeof match === 'string') out.push(eb(column, '=', match));
    else if (Array.isArray(match)) out.push(match.length === 0 ? sql<SqlBool>`1 = 0` : eb(column, 'in', match as readonly string[]));
    else {
      const range = match as Exclude<typeof match, readonly string[]>;
      if (range.gt !== undefined) out.push(eb(column, '>', range.gt));
      if (range.gte !== undefined) out.push(eb(column, '>=', range.gte));
      if (range.lt !== undefined) out.push(eb(column, '<', range.lt));
      if (range.lte !== undefined) out.push(eb(column, '<=', range.lte));
    }
  }
  return out;
}

/**
 * `where` split so that each part's lists fit the dialect's parameter limit: the longest list is cut
 * into chunks (lists are deduplicated, so the parts' matches never overlap).
 */
function parts(where: RecordWhere, maxParams: number): RecordWhere[] {
  const lists = MATCHED.filter((c) => Array.isArray(where[c]));
  const listed = lists.reduce((n, c) => n + (where[c] as readonly string[]).length, 0);
  // Room for env, table, ranges, the cursor and the limit.
  const room = maxParams - 16;
  if (listed <= room) return [where];
  const longest = lists.reduce((a, b) => ((where[a] as readonly string[]).length >= (where[b] as readonly string[]).length ? a : b));
  const others = listed - (where[longest] as readonly string[]).length;
  return chunk([...new Set(where[longest] as readonly string[])], 1, Math.max(1, room - others)).map((values) => ({ ...where, [longest]: values }));
}

/** Whether a find matches a column by a list: its statement's text grows with the list. */
const hasList = (query: RecordQuery) => MATCHED.some((column) => Array.isArray(query[column]));

/** A find by a list of keys or index values, unlimited and from the start: its rows are ordered after reading. */
const byList = (query: RecordQuery) => query.limit === undefined && !query.after && hasList(query);

const RANGE_BOUNDS = ['gt', 'gte', 'lt', 'lte'] as const;
type FindArgs = Record<string, unknown> & { env: string; tbl: string };

/**
 * A find's shape (one without lists): the place, which columns it matches and how (a value, none,
 * which range bounds), whether it pages on, its order and whether it is limited. Finds of one shape
 * differ only in their values.
 */
function findShape(place: RecordPlace, query: RecordQuery): string {
  let shape = `${place.name}|${query.order === 'desc' ? 'desc' : 'asc'}|${query.after ? 'after' : ''}|${query.limit === undefined ? 'all' : 'limit'}`;
  for (const column of MATCHED) {
    const match = query[column];
    if (match === undefined) continue;
    const how = match === null ? 'null' : typeof match === 'string' ? 'eq' : RANGE_BOUNDS.filter((bound) => (match as RecordRange)[bound] !== undefined).join(',');
    shape += `|${column}:${how}`;
  }
  return shape;
}

/** A find's values by name: each matched value and range bound, the position it pages on from, and its limit. */
function findArgs(env: string, table: string, query: RecordQuery): FindArgs {
  const args: FindArgs = { env, tbl: table };
  for (const column of MATCHED) {
    const match = query[column];
    if (match === undefined || match === null) continue;
    if (typeof match === 'string') args[column] = match;
    else for (const bound of RANGE_BOUNDS) if ((match as RecordRange)[bound] !== undefined) args[`${column}.${bound}`] = (match as RecordRange)[bound];
  }
  if (query.after) {
    args['after.sort'] = query.after.sort;
    args['after.key'] = query.after.key;
  }
  if (query.limit !== undefined) args['limit'] = Math.max(0, query.limit);
  return args;
}

/** The find of `shaped`'s shape with the values of `args` (for a statement being built: marker values). */
function queryOf(shaped: RecordQuery, args: FindArgs): RecordQuery {
  const query: Record<string, unknown> = { ...(shaped.order && { order: shaped.order }) };
  for (const column of MATCHED) {
    const match = shaped[column];
    if (match === undefined) continue;
    if (match === null) query[column] = null;
    else if (typeof match === 'string') query[column] = args[column];
    else query[column] = Object.fromEntries(RANGE_BOUNDS.filter((bound) => (match as RecordRange)[bound] !== undefined).map((bound) => [bound, args[`${column}.${bound}`]]));
  }
  if (shaped.after) query['after'] = { sort: args['after.sort'], key: args['after.key'] };
  if ('limit' in args) query['limit'] = args['limit'];
  return query as RecordQuery;
}

/** A find's statement (its limit already at least 0): `part` gives its shape, `env`, `table` and the values may be markers. */
function selectQuery(runner: Db, place: RecordPlace, env: string, table: string, part: RecordQuery) {
  const desc = part.order === 'desc';
  let query = runner
    .selectFrom(place.name as 'tidings_records')
    .select(READ)
    .where((eb) => eb.and([...ofTable(eb, env, table, place), ...conditions(eb, part)]));
  const after = part.after;
  if (after) {
    const past = desc ? '<' : '>';
    query = query.where((eb) => eb.or([eb('sort', past, after.sort), eb.and([eb('sort', '=', after.sort), eb('key', past, after.key)])]));
  }
  // A find by a list of values without a limit reads them by that column's index and is ordered
  // here: asked to order, SQLite walks the sort index over the whole table instead.
  if (byList(part)) return query;
  query = query.orderBy('sort', desc ? 'desc' : 'asc').orderBy('key', desc ? 'desc' : 'asc');
  return part.limit === undefined ? query : query.limit(part.limit);
}

/** `part`'s structure with its values blank: all a statement built from it keeps of it. */
const skeletonOf = (part: RecordQuery): RecordQuery => queryOf(part, Object.fromEntries(Object.keys(findArgs('', '', part)).map((name) => [name, ''])) as FindArgs);

const findStatements = new Map<string, ReturnType<typeof reusableQuery<FindArgs>>>();

/**
 * The statement of finds of `part`'s shape, built the first time one is run: finds without lists (a
 * workflow by identifier, the active integrations) each run one built once. Finds with lists build
 * theirs each time (a statement kept per list length would keep growing).
 */
function findStatement(place: RecordPlace, part: RecordQuery) {
  const shape = findShape(place, part);
  let statement = findStatements.get(shape);
  if (!statement) {
    const shaped = skeletonOf(part);
    statement = reusableQuery<FindArgs>((runner, args) => selectQuery(runner, place, args.env, args.tbl, queryOf(shaped, args)));
    findStatements.set(shape, statement);
  }
  return statement;
}

/**
 * The record store in the `tidings_records` table (see migration 0016), and the tables some record
 * tables have of their own (`OWN_RECORD_TABLES`, migration 0020). `get` is a fast path of
 * core's (a prepared statement: the lookup by keys is on every batch's path).
 */
export function recordStore({ db, dialect, atomic }: RepoContext): RecordBackend {
  const find = async (env: string, table: string, query: RecordQuery, runner: Db = db): Promise<StoredRecord[]> => {
    const split: RecordQuery[] = parts(query, dialect.maxParams);
    const rows: StoredRecord[] = [];
    const column = listOnly(query);
    const place = placeOf(table);
    if (column) {
      const statement = statementsOf(place).byValues[column];
      for (const part of split) for (const row of (await statement<Omit<Row, 'env' | 'tbl'>>(runner, dialect, { env, tbl: table, values: [...new Set(part[column] as readonly string[])] })).rows) rows.push(fromRow(row));
    } else {
      for (const part of split) {
        const found = hasList(part)
          ? await selectQuery(runner, place, env, table, part.limit === undefined ? part : { ...part, limit: Math.max(0, part.limit) }).execute()
          : (await findStatement(place, part)<Omit<Row, 'env' | 'tbl'>>(runner, dialect, findArgs(env, table, part))).rows;
        for (const row of found) rows.push(fromRow(row));
      }
    }
    if (split.length === 1 && !byList(query)) return rows;
    const sign = query.order === 'desc' ? -1 : 1;
    rows.sort((a, b) => sign * recordOrder(a, b));
    return query.limit === undefined ? rows : rows.slice(0, Math.max(0, query.limit));
  };
  const byKeys = (keys: readonly string[]) => chunk([...new Set(keys)], 1, dialect.maxParams - 2);
  /** The rows of these keys (in as many statements as the parameter limit needs), each made a value, in the order of `keys`, each once. */
  const readByKeys = async <R extends { key: string }, T>(statement: ReturnType<typeof reusableQuery<ListArgs>>, env: string, table: string, keys: readonly string[], make: (row: R) => T): Promise<T[]> => {
    const found = new Map<string, T>();
    for (const part of byKeys(keys)) for (const row of (await statement<R>(db, dialect, { env, tbl: table, values: part })).rows) found.set(row.key, make(row));
    return foundInOrder(new Set(keys), found);
  };
  return {
    async put(env, table, records) {
      const place = placeOf(table);
      await statementsOf(place).upsert(db, dialect, unique(records, 'last').map((r) => cells(env, table, place, r)));
    },
    async insertNew(env, table, records) {
      const place = placeOf(table);
      const once = unique(records, 'first');
      const inserted = new Set((await statementsOf(place).insert(db, dialect, once.map((r) => cells(env, table, place, r)))).map((row) => row.key));
      return once.map((r) => r.key).filter((key) => inserted.has(key));
    },
    get: (env, table, keys) => readByKeys(statementsOf(placeOf(table)).byValues.key, env, table, keys, fromRow),
    getDocs: (env, table, keys) => readByKeys(statementsOf(placeOf(table)).docsByKey, env, table, keys, (row: Pick<Row, 'key' | 'doc'>) => decodeJson(row.doc)),
    find: (env, table, query) => find(env, table, query),
    async count(env, table, where) {
      let n = 0;
      const place = placeOf(table);
      for (const part of parts(where, dialect.maxParams)) {
        const row = await db
          .selectFrom(place.name as 'tidings_records')
          .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
          .where((eb) => eb.and([...ofTable(eb, env, table, place), ...conditions(eb, part)]))
          .executeTakeFirstOrThrow();
        n += Number(row.n);
      }
      return n;
    },
    async deleteWhere(env, table, { limit, ...where }) {
      const deleted: StoredRecord[] = [];
      const place = placeOf(table);
      const name = place.name as 'tidings_records';
      if (limit === undefined) {
        for (const part of parts(where, dialect.maxParams)) {
          const rows = await deleteReturningNow(db, dialect, name, (eb) => eb.and([...ofTable(eb, env, table, place), ...conditions(eb, part)]), READ);
          for (const row of rows) deleted.push(fromRow(row));
        }
      } else {
        // The first `limit` in order, found and deleted in one transaction.
        await atomic(async (tx) => {
          const doomed = await find(env, table, { ...where, limit }, tx);
          for (const part of byKeys(doomed.map((r) => r.key))) {
            const rows = await deleteReturningNow(tx, dialect, name, (eb) => eb.and([...ofTable(eb, env, table, place), eb('key', 'in', part)]), READ);
            for (const row of rows) deleted.push(fromRow(row));
          }
        });
      }
      return deleted.sort(recordOrder);
    },
  };
}
