import { TidingsError } from '../errors.js';
import type { RecordInput, RecordStore, StoredRecord } from './record-store.js';
import type { Digest, DigestEvent, DigestHead, DigestLastEvent, DigestRepository } from '../storage.js';

/** A digest's head and its events, in one table so a join writes both in one call. */
export const DIGESTS = 'digests';
const TABLE = DIGESTS;
/** What each backoff key last recorded, by key. */
export const DIGEST_KEYS = 'digest-keys';
const KEYS = DIGEST_KEYS;

/**
 * A head's sort value: its status, then its due time. Open heads sort as one range ordered earliest
 * due first (`listOpen`, `countOpen`); events sort as digits, below every head.
 */
const headSort = (status: Digest['status'], dueAt: string) => `${status}\u0001${dueAt}`;
/** Every open head's sort value, and no other record's. */
const OPEN_HEADS = { gt: 'open\u0001', lt: 'open\u0002' } as const;
const FIRST = 'first';

/**
 * An open head is keyed by its digest key, so two opens of one key cannot both be inserted; a closed
 * one by its id, freeing the key for the next digest.
 */
const openKey = (key: string) => `open\u0001${key}`;
const closedKey = (id: string) => `closed\u0001${id}`;
/** An event is keyed by the digest key and its trigger: each trigger joins a key once. */
const eventKey = (key: string, transactionId: string) => `event\u0001${key}\u0001${transactionId}`;
/** Join order: a per-digest sequence, fixed-width so it sorts as text (migration 0017 keeps the old rows' numbers). */
const seqSort = (seq: number) => String(seq).padStart(12, '0');

/** A head as stored: the digest without its events, how many it holds, and the last sequence number used. */
type HeadDoc = DigestHead & { readonly seq: number };

/**
 * A head record: keyed as above, the digest id in `i1` (as its events), no `i2` (which events fill),
 * the subscriber in `i3`, sorted by status and due time.
 */
const headInput = (head: HeadDoc): RecordInput => ({
  key: head.status === 'open' ? openKey(head.key) : closedKey(head.id),
  i1: head.id,
  i3: head.subscriberId,
  sort: headSort(head.status, head.dueAt),
  doc: head,
});

/** An event record: the digest id in `i1`, the trigger in `i2`, `first` in `i3` on the digest's first event, sorted by sequence. */
const eventInput = (key: string, digestId: string, event: DigestEvent, seq: number, first: boolean): RecordInput => ({
  key: eventKey(key, event.transactionId),
  i1: digestId,
  i2: event.transactionId,
  i3: first ? FIRST : null,
  sort: seqSort(seq),
  doc: event,
});

/** A stored event record back as the input that wrote it (to re-mark it first). */
const asInput = (record: StoredRecord): RecordInput => ({ key: record.key, i1: record.i1, i2: record.i2, i3: record.i3, sort: record.sort, doc: record.doc });

const isHead = (record: StoredRecord) => record.i2 === null;
const headOf = (record: StoredRecord): DigestHead => {
  const { seq: _seq, ...head } = record.doc as HeadDoc;
  return head;
};
const wholeOf = (head: DigestHead, events: readonly StoredRecord[]): Digest => {
  const { eventCount: _count, ...digest } = head;
  return { ...digest, events: events.map((record) => record.doc as DigestEvent) };
};

/** The records of these digests (heads and events, events in join order), grouped by digest id. */
async function digestsById(records: RecordStore, env: string, ids: readonly string[]): Promise<Map<string, { head: StoredRecord | null; events: StoredRecord[] }>> {
  const out = new Map<string, { head: StoredRecord | null; events: StoredRecord[] }>();
  if (ids.length === 0) return out;
  for (const record of await records.find(env, TABLE, { i1: [...new Set(ids)] })) {
    let digest = out.get(record.i1!);
    if (!digest) out.set(record.i1!, (digest = { head: null, events: [] }));
    if (isHead(record)) digest.head = record;
    else digest.events.push(record);
  }
  return out;
}

/** Whole digests, earliest due first (then by id), of the open heads among `groups`. */
function openDigests(groups: Iterable<{ head: StoredRecord | null; events: StoredRecord[] }>, subscriberId?: string): Digest[] {
  const out: Digest[] = [];
  for (const { head, events } of groups) {
    if (!head) continue;
    const found = headOf(head);
    if (found.status === 'open' && (subscriberId === undefined || found.subscriberId === subscriberId)) out.push(wholeOf(found, events));
  }
  return out.sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Digests in the record store. A join reads one record (the open head by its key, or the event by its
 * key) and writes two (the head with its new due time and count, the event), whatever the digest
 * holds; a whole digest is one find by id. Runs inside `transaction` as the rules over it do
 * (`joinDigest`): a head's read and rewrite are then one step.
 */
export function digestRepository(records: RecordStore): DigestRepository {
  const headRecord = async (env: string, id: string) => (await records.find(env, TABLE, { i1: id, i2: null, limit: 1 }))[0] ?? null;
  return {
    async openHead(env, key) {
      const [found] = await records.get(env, TABLE, [openKey(key)]);
      return found ? headOf(found) : null;
    },
    async head(env, id) {
      const found = await headRecord(env, id);
      return found ? headOf(found) : null;
    },
    async membership(env, key, transactionId) {
      const [found] = await records.get(env, TABLE, [eventKey(key, transactionId)]);
      return found ? { digestId: found.i1!, first: found.i3 === FIRST } : null;
    },
    async insertOpen(env, open, event) {
      const head: HeadDoc = { ...open, status: 'open', eventCount: 1, seq: 1 };
      const first = eventInput(open.key, open.id, event, 1, true);
      const inserted = await records.insertNew(env, TABLE, [headInput(head), first]);
      if (!inserted.includes(openKey(open.key))) {
        // Another open of the key won the race: take back this one's event, and let the caller retry.
        if (inserted.includes(first.key)) await records.delete(env, TABLE, [first.key]);
        throw new TidingsError('conflict', `a digest of key "${open.key}" is open already`);
      }
      // An event record left of a digest that is gone is replaced.
      if (!inserted.includes(first.key)) await records.put(env, TABLE, [first]);
    },
    async append(env, digestId, key, event, dueAt) {
      const [open] = await records.get(env, TABLE, [openKey(key)]);
      const found = open && open.i1 === digestId ? open : await headRecord(env, digestId);
      if (!found) return;
      const head = found.doc as HeadDoc;
      const seq = head.seq + 1;
      await records.put(env, TABLE, [headInput({ ...head, dueAt, eventCount: head.eventCount + 1, seq }), eventInput(key, digestId, event, seq, head.eventCount === 0)]);
    },
    async lastEvent(env, key) {
      const [found] = await records.get(env, KEYS, [key]);
      return found ? (found.doc as DigestLastEvent) : null;
    },
    async putLastEvent(env, key, last) {
      await records.put(env, KEYS, [{ key, doc: last }]);
    },
    async close(env, id) {
      const digest = (await digestsById(records, env, [id])).get(id);
      if (!digest?.head) return null;
      const head = digest.head.doc as HeadDoc;
      if (head.status === 'open') {
        const closed: HeadDoc = { ...head, status: 'closed' };
        await records.put(env, TABLE, [headInput(closed)]);
        await records.delete(env, TABLE, [digest.head.key]);
      }
      return wholeOf({ ...headOf(digest.head), status: 'closed' }, digest.events);
    },
    async get(env, id) {
      const digest = (await digestsById(records, env, [id])).get(id);
      return digest?.head ? wholeOf(headOf(digest.head), digest.events) : null;
    },
    async removeTransaction(env, transactionId) {
      const joined = await records.find(env, TABLE, { i2: transactionId });
      const updated: Digest[] = [];
      const deleted: string[] = [];
      const doomed: string[] = [];
      const puts: RecordInput[] = [];
      for (const [id, { head, events }] of await digestsById(records, env, joined.map((record) => record.i1!))) {
        if (!head || (head.doc as HeadDoc).status !== 'open') continue;
        const left = events.filter((record) => record.i2 !== transactionId);
        doomed.push(...events.filter((record) => record.i2 === transactionId).map((record) => record.key));
        if (left.length === 0) {
          doomed.push(head.key);
          deleted.push(id);
          continue;
        }
        const stored = head.doc as HeadDoc;
        puts.push(headInput({ ...stored, eventCount: left.length }));
        // The first event left owns the digest now (`membership` answers `first` for it).
        if (left[0]!.i3 !== FIRST) puts.push(asInput({ ...left[0]!, i3: FIRST }));
        updated.push(wholeOf({ ...headOf(head), eventCount: left.length }, left));
      }
      if (doomed.length > 0) await records.delete(env, TABLE, doomed);
      if (puts.length > 0) await records.put(env, TABLE, puts);
      return { updated, deleted };
    },
    async listOpen(env, filter = {}) {
      if (filter.transactionId !== undefined) {
        const joined = await records.find(env, TABLE, { i2: filter.transactionId });
        return openDigests((await digestsById(records, env, joined.map((record) => record.i1!))).values(), filter.subscriberId);
      }
      const heads = await records.find(env, TABLE, { sort: OPEN_HEADS, ...(filter.subscriberId !== undefined && { i3: filter.subscriberId }) });
      return openDigests((await digestsById(records, env, heads.map((record) => record.i1!))).values());
    },
    countOpen: (env) => records.count(env, TABLE, { sort: OPEN_HEADS }),
  };
}

/** The triggers with an event in one of the environment's open digests: their walk is not over. */
export async function openDigestTransactions(records: RecordStore, env: string): Promise<Set<string>> {
  const heads = await records.find(env, TABLE, { sort: OPEN_HEADS });
  const busy = new Set<string>();
  for (const { events } of (await digestsById(records, env, heads.map((record) => record.i1!))).values()) for (const event of events) busy.add(event.i2!);
  return busy;
}

/**
 * Deletes the closed digests whose first event is one of these triggers' (with all their events):
 * retention's part of deleting those triggers' notifications.
 */
export async function deleteOwnedDigests(records: RecordStore, env: string, transactionIds: readonly string[]): Promise<void> {
  if (transactionIds.length === 0) return;
  const firsts = await records.find(env, TABLE, { i2: [...new Set(transactionIds)], i3: FIRST });
  if (firsts.length === 0) return;
  const heads = await records.find(env, TABLE, { i1: [...new Set(firsts.map((record) => record.i1!))], i2: null });
  const closed = heads.filter((record) => (record.doc as HeadDoc).status === 'closed').map((record) => record.i1!);
  if (closed.length > 0) await records.deleteWhere(env, TABLE, { i1: closed });
}

/** Where the digests' records are, for a backend that checks them inside a statement of its own (retention's). */
export const DIGEST_RECORDS = { table: TABLE, openHeads: OPEN_HEADS } as const;
