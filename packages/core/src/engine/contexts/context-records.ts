import type { NamedContext } from '../../contexts/context-keys.js';
import type { RecordStore } from '../../records/record-store.js';
import type { ResolvedContext, StoredContext } from '../../schemas/context.js';

export const CONTEXTS = 'contexts';

/** A stored context's record key: `type:id`, its key as messages carry it. */
export const contextRecordKey = (type: string, id: string) => `${type}:${id}`;

export async function readContexts(records: RecordStore, env: string, keys: readonly string[]): Promise<Map<string, StoredContext>> {
  if (keys.length === 0) return new Map();
  return new Map(((await records.getDocs(env, CONTEXTS, keys)) as StoredContext[]).map((c) => [contextRecordKey(c.type, c.id), c] as const));
}

export const putContexts = (records: RecordStore, env: string, contexts: readonly StoredContext[]) =>
  records.put(env, CONTEXTS, contexts.map((c) => ({ key: contextRecordKey(c.type, c.id), sort: contextRecordKey(c.type, c.id), i1: c.type, i2: c.id, doc: c })));

/** The data of the contexts a call's events named so far, by `type:id`: given by an earlier event, or read once. */
export type ContextDataSeen = Map<string, Promise<Record<string, unknown>>>;

/**
 * The contexts a trigger names as its run sees them: the data given with a context, else the data an
 * earlier event of the call gave it, else the stored context's, else none. Read before the call's
 * transaction (each context once per call, through `seen`); a context given with data is written in it.
 */
export async function resolveContexts(records: RecordStore, env: string, named: readonly NamedContext[], seen: ContextDataSeen): Promise<ResolvedContext> {
  if (named.length === 0) return {};
  const missing = named.filter((c) => c.data === undefined && !seen.has(contextRecordKey(c.type, c.id))).map((c) => contextRecordKey(c.type, c.id));
  if (missing.length > 0) {
    const read = readContexts(records, env, missing);
    for (const key of missing) seen.set(key, read.then((stored) => stored.get(key)?.data ?? {}));
  }
  for (const c of named) if (c.data !== undefined) seen.set(contextRecordKey(c.type, c.id), Promise.resolve(c.data));
  const entries = await Promise.all(named.map(async (c) => [c.type, { id: c.id, data: c.data ?? (await seen.get(contextRecordKey(c.type, c.id))!) }] as const));
  return Object.fromEntries(entries);
}

/**
 * Stores the contexts triggers gave with data, inside their transaction: a new one is created, a
 * stored one takes the data (the last trigger's, in a batch), keeping when it was created.
 */
export async function storeGivenContexts(records: RecordStore, env: string, given: readonly NamedContext[], now: string): Promise<void> {
  const latest = new Map(given.filter((c) => c.data !== undefined).map((c) => [contextRecordKey(c.type, c.id), c] as const));
  if (latest.size === 0) return;
  const stored = await readContexts(records, env, [...latest.keys()]);
  const contexts = [...latest].map(([key, c]): StoredContext => ({ type: c.type, id: c.id, data: c.data!, createdAt: stored.get(key)?.createdAt ?? now, updatedAt: now }));
  await putContexts(records, env, contexts);
}
