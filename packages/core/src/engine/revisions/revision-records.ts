import { TidingsError } from '../../errors.js';
import { recordAudit } from '../audit/audit-records.js';
import { changedFields } from '../audit/changed-fields.js';
import type { AuditKind } from '../../schemas/operating.js';

/** The audit kind of each revisioned table. */
const AUDIT_KINDS: Readonly<Record<string, AuditKind>> = { workflow_revisions: 'workflow', layout_revisions: 'layout', partial_revisions: 'partial', translation_revisions: 'translations' };
import { docsOf, firstDoc } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import type { RevisionMeta } from '../../schemas/index.js';
import type { KindRules } from '../../revisions/kinds.js';
import { sameDefinition } from '../../revisions/kinds.js';

/** What a revisioned record has: its revision (a code workflow's is a hash) and the instant of its last change. */
export interface Revisable {
  readonly revision?: number | string | undefined;
  readonly updatedAt: string;
}

/**
 * A kind whose every change is kept as an immutable revision (see revision-kinds.ts): its rules, the
 * table of its revisions, the id they are kept under and how a revision holds the value.
 */
export interface RevisionKind<T extends Revisable, R extends RevisionMeta> extends KindRules<T> {
  readonly table: string;
  /** The id of what a revision is of: its records' i1. */
  readonly idOf: (value: T) => string;
  /** Another name its revisions are found by once it is deleted (i2), when its id is not the name people use. */
  readonly aliasOf?: (value: T) => string;
  readonly wrap: (value: T, meta: RevisionMeta) => R;
  readonly unwrap: (revision: R) => T;
}

/** Where a kind's revisions are, and what they are (for the type of what is read). */
type RevisionTable<R extends RevisionMeta> = Pick<RevisionKind<Revisable, R>, 'table'> & { readonly unwrap: (revision: R) => unknown };

/** Numbers in byte order: a revision's sort value. */
const padded = (revision: number) => String(revision).padStart(10, '0');
/** A revision's key: the id of what it is of, and its number. */
export const revisionKey = (id: string, revision: number): string => `${id}\u0001${padded(revision)}`;

/**
 * Stores a new revision; of two writers racing for one number one wins, and the other's whole change
 * is refused (`conflict`), since it read the value before the winner's.
 */
export async function storeRevision<T extends Revisable, R extends RevisionMeta>(records: RecordStore, env: string, kind: RevisionKind<T, R>, revision: R): Promise<void> {
  const value = kind.unwrap(revision);
  const id = kind.idOf(value);
  const record = { key: revisionKey(id, revision.revision), i1: id, i2: kind.aliasOf?.(value) ?? null, sort: padded(revision.revision), doc: revision };
  const stored = await records.insertNew(env, kind.table, [record]);
  if (stored.length === 0) throw new TidingsError('conflict', `${kind.noun[0]} "${kind.nameOf(value)}" was changed by another call at the same time (revision ${revision.revision}); read it again and retry`);
}

/** The newest revision number kept of an id, or 0 when it has none. */
export async function lastRevisionNumber(records: RecordStore, env: string, kind: Pick<RevisionKind<Revisable, RevisionMeta>, 'table'>, id: string): Promise<number> {
  return firstDoc<RevisionMeta>(await records.find(env, kind.table, { i1: id, order: 'desc', limit: 1 }))?.revision ?? 0;
}

/** An id's revisions, newest first, at most `limit`. */
export async function revisionsOf<R extends RevisionMeta>(records: RecordStore, env: string, kind: RevisionTable<R>, id: string, limit: number): Promise<R[]> {
  return docsOf<R>(await records.find(env, kind.table, { i1: id, order: 'desc', limit }));
}

/** The revisions with these (id, number) pairs, by `revisionKey`; missing ones are left out. */
export async function getRevisions<R extends RevisionMeta>(records: RecordStore, env: string, kind: RevisionTable<R>, wanted: readonly { id: string; revision: number }[]): Promise<Map<string, R>> {
  if (wanted.length === 0) return new Map();
  const found = await records.get(env, kind.table, wanted.map((w) => revisionKey(w.id, w.revision)));
  return new Map(found.map((r) => [r.key, r.doc as R] as const));
}

/** One revision, or null. */
export async function getRevision<R extends RevisionMeta>(records: RecordStore, env: string, kind: RevisionTable<R>, id: string, revision: number): Promise<R | null> {
  return firstDoc<R>(await records.get(env, kind.table, [revisionKey(id, revision)]));
}

/** The id whose revisions carry this alias (the newest number first): history outlives a deletion. */
export async function idOfAlias<T extends Revisable, R extends RevisionMeta>(records: RecordStore, env: string, kind: RevisionKind<T, R>, alias: string): Promise<string | null> {
  const found = firstDoc<R>(await records.find(env, kind.table, { i2: alias, order: 'desc', limit: 1 }));
  return found ? kind.idOf(kind.unwrap(found)) : null;
}

/**
 * The one way a revisioned value is written: `put` stores `value` over `stored` with the next
 * revision number, and the revision (who, when, the whole value, what it restores) is recorded beside
 * it in the same transaction (`records` is the transaction's). A value that defines what is stored
 * already writes nothing and returns the stored one.
 */
export async function saveRevision<T extends Revisable, R extends RevisionMeta>(
  records: RecordStore,
  env: string,
  kind: RevisionKind<T, R>,
  change: { readonly stored: T | null; readonly value: T; readonly by: string; readonly restores?: number | undefined },
  put: (value: T) => Promise<T>,
): Promise<{ value: T; changed: boolean }> {
  const { stored, by, restores } = change;
  if (stored && sameDefinition(kind, stored, change.value)) return { value: stored, changed: false };
  // A value saved before revisions were kept counts on from the number it had.
  const counted = typeof stored?.revision === 'number' ? stored.revision : 0;
  const revision = Math.max(counted, await lastRevisionNumber(records, env, kind, kind.idOf(change.value))) + 1;
  const value = await put({ ...change.value, revision });
  await storeRevision(records, env, kind, kind.wrap(value, { revision, by, at: value.updatedAt, ...(restores !== undefined && { restores }) }));
  await recordAudit(records, env, new Date(value.updatedAt), [{ kind: AUDIT_KINDS[kind.table] ?? 'workflow', action: stored ? 'updated' : 'created', target: kind.nameOf(value), fields: changedFields(stored, value), who: by }]);
  return { value, changed: true };
}
