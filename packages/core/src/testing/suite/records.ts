import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docsByGet, getByFind, type RecordInput, type RecordMatch, type RecordQuery, type RecordStore, type RecordWhere, type StoredRecord } from '../../records/record-store.js';
import type { SuiteContext } from '../storage-under-test.js';
import { faultyStorage, InjectedFault } from '../faulty-storage.js';

/**
 * The record store against a reference model: a Map per (environment, table), filtered and sorted
 * the plainest way. Values mix cases and prefixes so that an ordering other than byte order (a
 * database collation) shows.
 */
type Model = Map<string, Map<string, StoredRecord>>;

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const order = (a: StoredRecord, b: StoredRecord) => cmp(a.sort, b.sort) || cmp(a.key, b.key);

function meets(value: string | null, match: RecordMatch | undefined): boolean {
  if (match === undefined) return true;
  if (match === null || typeof match === 'string') return value === match;
  if (value === null) return false;
  if (Array.isArray(match)) return match.includes(value);
  const r = match as Exclude<RecordMatch, string | null | readonly string[]>;
  return (r.gt === undefined || value > r.gt) && (r.gte === undefined || value >= r.gte) && (r.lt === undefined || value < r.lt) && (r.lte === undefined || value <= r.lte);
}

const where = (rows: Iterable<StoredRecord>, w: RecordWhere) => [...rows].filter((r) => meets(r.key, w.key) && meets(r.i1, w.i1) && meets(r.i2, w.i2) && meets(r.i3, w.i3) && meets(r.sort, w.sort));

function modelFind(rows: Iterable<StoredRecord>, q: RecordQuery): StoredRecord[] {
  const sign = q.order === 'desc' ? -1 : 1;
  const after = q.after;
  const found = where(rows, q)
    .filter((r) => !after || sign * (cmp(r.sort, after.sort) || cmp(r.key, after.key)) > 0)
    .sort((a, b) => sign * order(a, b));
  return q.limit === undefined ? found : found.slice(0, q.limit);
}

const stored = (r: RecordInput): StoredRecord => ({ key: r.key, i1: r.i1 ?? null, i2: r.i2 ?? null, i3: r.i3 ?? null, sort: r.sort ?? '', doc: r.doc });

const text = fc.constantFrom('x', 'y', 'X', 'xy', 'x-1', 'Y', '');
const key = fc.constantFrom('a', 'b', 'B', 'a1', 'A', 'ab', 'c');
const indexValue = fc.option(text, { nil: null });
const record: fc.Arbitrary<RecordInput> = fc.record(
  { key, i1: indexValue, i2: indexValue, i3: indexValue, sort: fc.constantFrom('', '1', '10', '2', 'a', 'B', 'b'), doc: fc.record({ n: fc.integer(), tags: fc.array(fc.constantFrom('p', 'q'), { maxLength: 2 }) }) },
  { requiredKeys: ['key', 'doc'] },
);
const range = fc.record({ gt: text, gte: text, lt: text, lte: text }, { requiredKeys: [] });
const match: fc.Arbitrary<RecordMatch> = fc.oneof(text, fc.constant(null), fc.uniqueArray(text, { maxLength: 3 }), range);
const sortMatch = fc.oneof(fc.constantFrom('1', '10', 'a', 'B'), fc.uniqueArray(fc.constantFrom('', '1', 'a', 'B'), { maxLength: 3 }), fc.record({ gt: fc.constantFrom('', '1', 'a'), lte: fc.constantFrom('2', 'b', 'B') }, { requiredKeys: [] }));
const keyMatch = fc.oneof(key, fc.uniqueArray(key, { maxLength: 3 }), fc.record({ gt: key, lte: key }, { requiredKeys: [] }));
const whereArb: fc.Arbitrary<RecordWhere> = fc.record({ key: keyMatch, i1: match, i2: match, i3: match, sort: sortMatch }, { requiredKeys: [] });
const query: fc.Arbitrary<RecordQuery> = fc
  .tuple(whereArb, fc.option(fc.constantFrom('asc' as const, 'desc' as const), { nil: undefined }), fc.option(fc.record({ sort: fc.constantFrom('', '1', 'a', 'B'), key }), { nil: undefined }), fc.option(fc.nat({ max: 4 }), { nil: undefined }))
  .map(([w, ord, after, limit]) => ({ ...w, ...(ord && { order: ord }), ...(after && { after }), ...(limit !== undefined && { limit }) }));

type Op =
  | { op: 'put' | 'insertNew'; at: number; records: RecordInput[] }
  | { op: 'get' | 'delete'; at: number; keys: string[] }
  | { op: 'find'; at: number; query: RecordQuery }
  | { op: 'count'; at: number; where: RecordWhere }
  | { op: 'deleteWhere'; at: number; where: RecordWhere; limit?: number };

/**
 * Where an operation goes: two environments by three tables, so none may see another's records. One
 * is `notifications`, which a SQL backend keeps in a table of its own: both kinds of place answer.
 */
const TABLES = ['t1', 't2', 'notifications'] as const;
const at = fc.nat({ max: 2 * TABLES.length - 1 });
const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    { arbitrary: fc.record({ op: fc.constantFrom('put' as const, 'insertNew' as const), at, records: fc.array(record, { minLength: 1, maxLength: 4 }) }), weight: 4 },
    fc.record({ op: fc.constantFrom('get' as const, 'delete' as const), at, keys: fc.array(key, { maxLength: 4 }) }),
    { arbitrary: fc.record({ op: fc.constant('find' as const), at, query }), weight: 3 },
    fc.record({ op: fc.constant('count' as const), at, where: whereArb }),
    fc.record({ op: fc.constant('deleteWhere' as const), at, where: whereArb, limit: fc.option(fc.nat({ max: 3 }), { nil: undefined }) }).map(({ limit, ...rest }) => ({ ...rest, ...(limit !== undefined && { limit }) })),
  ),
  { minLength: 1, maxLength: 25 },
);

/** Runs one operation on the store and on the model; returns both answers. */
async function step(store: RecordStore, model: Model, place: readonly [string, string], op: Op): Promise<[unknown, unknown]> {
  const [env, table] = place;
  const rows = model.get(`${env}/${table}`) ?? new Map<string, StoredRecord>();
  model.set(`${env}/${table}`, rows);
  switch (op.op) {
    case 'put':
      for (const r of op.records) rows.set(r.key, stored(r));
      return [await store.put(env, table, op.records), undefined];
    case 'insertNew': {
      const inserted: string[] = [];
      for (const r of op.records) {
        if (rows.has(r.key)) continue;
        rows.set(r.key, stored(r));
        inserted.push(r.key);
      }
      return [await store.insertNew(env, table, op.records), inserted];
    }
    case 'get': {
      // A backend's own `get` and `getDocs` are fast paths of core's (over `find`, over `get`): all answer as the model does.
      const expected = [...new Set(op.keys)].flatMap((k) => rows.get(k) ?? []);
      const docs = expected.map((r) => r.doc);
      return [[await store.get(env, table, op.keys), await getByFind(store, env, table, op.keys), await store.getDocs(env, table, op.keys), await docsByGet(store, env, table, op.keys)], [expected, expected, docs, docs]];
    }
    case 'delete': {
      let n = 0;
      for (const k of new Set(op.keys)) if (rows.delete(k)) n++;
      return [await store.delete(env, table, op.keys), n];
    }
    case 'find':
      return [await store.find(env, table, op.query), modelFind(rows.values(), op.query)];
    case 'count':
      return [await store.count(env, table, op.where), where(rows.values(), op.where).length];
    case 'deleteWhere': {
      const doomed = modelFind(rows.values(), { ...op.where, ...(op.limit !== undefined && { limit: op.limit }) });
      for (const r of doomed) rows.delete(r.key);
      return [await store.deleteWhere(env, table, { ...op.where, ...(op.limit !== undefined && { limit: op.limit }) }), doomed];
    }
  }
}

export function recordsSuite({ get }: SuiteContext): void {
  describe('record store', () => {
    it('records — random sequences of put, insertNew, get, find, count, delete and deleteWhere answer as a Map model does, per environment and table (a backend’s own get and getDocs as core’s)', { timeout: 120_000 }, async () => {
      const s = get();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(ops, async (sequence) => {
          run++;
          const places = [`rec-${run}-a`, `rec-${run}-b`].flatMap((env) => TABLES.map((table) => [env, table] as const));
          const model: Model = new Map();
          for (const [i, op] of sequence.entries()) {
            const [actual, expected] = await step(s.records, model, places[op.at]!, op);
            expect(actual, `operation #${i} ${JSON.stringify(op)}`).toEqual(expected);
          }
        }),
        { numRuns: s.capabilities.multiProcess ? 40 : 100 },
      );
    });

    it('records — a transaction that throws leaves every record as it was; one that resolves commits them all', async () => {
      const s = get();
      await s.records.put('env-a', 't', [{ key: 'k1', i1: 'x', sort: '1', doc: { v: 1 } }, { key: 'k2', doc: { v: 2 } }]);
      const before = await s.records.find('env-a', 't', {});
      await expect(
        s.transaction(async (tx) => {
          await tx.records.put('env-a', 't', [{ key: 'k1', doc: { v: 10 } }, { key: 'k3', doc: { v: 3 } }]);
          expect(await tx.records.insertNew('env-a', 't', [{ key: 'k2', doc: {} }, { key: 'k4', doc: { v: 4 } }])).toEqual(['k4']);
          expect(await tx.records.delete('env-a', 't', ['k2'])).toBe(1);
          expect((await tx.records.deleteWhere('env-a', 't', { sort: '' })).map((r) => r.key)).toEqual(['k1', 'k3', 'k4']);
          expect(await tx.records.count('env-a', 't', {})).toBe(0);
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await s.records.find('env-a', 't', {})).toEqual(before);
      await s.transaction(async (tx) => {
        await tx.records.put('env-a', 't', [{ key: 'k3', doc: { v: 3 } }]);
        await tx.records.delete('env-a', 't', ['k2']);
      });
      expect((await s.records.find('env-a', 't', {})).map((r) => r.key)).toEqual(['k3', 'k1']);
    });

    it('records — documents read back as JSON data, with the record’s index and sort values', async () => {
      const s = get();
      const doc = { list: [1, { deep: 'yes' }], text: 'é ✓ "quoted"', none: null, flag: false };
      await s.records.put('env-a', 't', [{ key: 'k', i2: 'two', sort: 'S', doc }]);
      expect(await s.records.get('env-a', 't', ['k', 'missing', 'k'])).toEqual([{ key: 'k', i1: null, i2: 'two', i3: null, sort: 'S', doc }]);
      expect(await s.records.get('env-b', 't', ['k'])).toEqual([]);
      expect(await s.records.get('env-a', 'other', ['k'])).toEqual([]);
    });

    it('records — insertNew: of a batch’s duplicates the first wins; of racing inserts of one key exactly one wins', async () => {
      const s = get();
      expect(await s.records.insertNew('env-a', 't', [{ key: 'k', doc: 1 }, { key: 'k', doc: 2 }])).toEqual(['k']);
      expect((await s.records.get('env-a', 't', ['k']))[0]!.doc).toBe(1);
      const won = await Promise.all(Array.from({ length: 5 }, (_, i) => s.records.insertNew('env-a', 't', [{ key: 'race', doc: i }])));
      expect(won.filter((keys) => keys.length === 1)).toHaveLength(1);
      await s.records.put('env-a', 't', [{ key: 'p', doc: 1 }, { key: 'p', doc: 2 }]);
      expect((await s.records.get('env-a', 't', ['p']))[0]!.doc).toBe(2);
    });

    it('records — fault injection names record store calls (records.get) and the repositories over them by their own names (tenants.get), and fails either', async () => {
      const faulty = faultyStorage(get());
      faulty.arm();
      await faulty.records.put('env-a', 't', [{ key: 'k', doc: 1 }]);
      await faulty.tenants.get('env-a', 'acme');
      await faulty.transaction((tx) => tx.records.get('env-a', 't', ['k']));
      expect(faulty.points).toEqual(['records.put', 'tenants.get', 'records.get', 'commit']);
      for (const call of [() => faulty.tenants.get('env-a', 'acme'), () => faulty.records.find('env-a', 't', {})]) {
        faulty.arm({ at: 0, mode: 'throw' });
        await expect(call()).rejects.toBeInstanceOf(InjectedFault);
      }
      faulty.disarm();
    });
  });
}
