import { z } from 'zod';
import { currentActor } from '../audit/actor.js';
import { notFound, TidingsError } from '../../errors.js';
import { diffLines, type RevisionChange } from '../../revisions/record-diff.js';
import { idSchema, revisionHistoryQuerySchema, revisionNumberSchema, writeOptionsSchema, type RevisionHistoryQuery, type RevisionMeta, type WriteOptions } from '../../schemas/index.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { getRevision, lastRevisionNumber, revisionsOf, type Revisable, type RevisionKind } from './revision-records.js';

/** What `diff` answers: the changes from revision `from` to `to`, and the same as lines. */
export interface RevisionDiff {
  readonly from: number;
  readonly to: number;
  readonly changes: readonly RevisionChange[];
  readonly lines: readonly string[];
}

/** How the history calls reach one kind's values. */
export interface HistoryAccess<T> {
  /** The id a reference names, also of one deleted since (its revisions keep it); `not_found` when there is none. */
  idOf(ref: string): Promise<string>;
  /** Makes an old revision's value the current one, in one transaction, recording what it restores; the value stored after. */
  restore(value: T, by: string, restores: number): Promise<T>;
}

/** A revision number, refused naming `field` when it is none. */
const checkRevision = (revision: number, field: string) => parseInput(z.strictObject({ [field]: revisionNumberSchema }), { [field]: revision }, 'revision');

/**
 * `history`, `revision`, `diff` and `rollback` of one kind of revisioned value, the same for each:
 * workflows, layouts, partials, translation catalogs.
 */
export function historyApi<T extends Revisable, R extends RevisionMeta>(ctx: EngineContext, kind: RevisionKind<T, R>, access: HistoryAccess<T>) {
  const { storage, env } = ctx;
  const noun = kind.noun[0].charAt(0).toUpperCase() + kind.noun[0].slice(1);

  async function requireRevision(ref: string, revision: number, field: string): Promise<R> {
    checkRevision(revision, field);
    const found = await getRevision(storage.records, env, kind, await access.idOf(ref), revision);
    if (!found) throw new TidingsError('not_found', `${noun} "${ref}" has no revision ${revision}`, { issues: [{ path: field, message: 'no such revision' }] });
    return found;
  }

  return {
    /** Its revisions, newest first (`limit`, default 50, at most 500); a deletion keeps them. */
    async history(ref: string, query: RevisionHistoryQuery = {}): Promise<R[]> {
      const { limit } = parseInput(revisionHistoryQuerySchema, query, 'history query');
      return revisionsOf(storage.records, env, kind, await access.idOf(ref), limit);
    },
    /** One revision, or null when it has none of that number. */
    async revision(ref: string, revision: number): Promise<R | null> {
      checkRevision(revision, 'revision');
      return getRevision(storage.records, env, kind, await access.idOf(ref), revision);
    },
    /** What changed from revision `from` to revision `to`, member by member (a workflow's steps matched by id). */
    async diff(ref: string, from: number, to: number): Promise<RevisionDiff> {
      const [a, b] = await Promise.all([requireRevision(ref, from, 'from'), requireRevision(ref, to, 'to')]);
      const changes = kind.diff(kind.unwrap(a), kind.unwrap(b));
      return { from, to, changes, lines: diffLines(changes) };
    },
    /**
     * Makes it what it was at `revision`: a new revision equal to that one (recording which it
     * restores), or nothing when it is that already. A workflow's runs pinned to other revisions keep them.
     */
    async rollback(ref: string, revision: number, options: WriteOptions = {}): Promise<T> {
      const { by } = parseInput(writeOptionsSchema, options, 'rollback options');
      const old = await requireRevision(ref, revision, 'revision');
      return access.restore(kind.unwrap(old), by ?? currentActor(), revision);
    },
  };
}

/**
 * `idOf` for a kind whose id is its name (a layout's identifier): the name, when one is stored or was
 * (its revisions outlive a deletion).
 */
export function namedIdOf(ctx: EngineContext, kind: Pick<RevisionKind<Revisable, RevisionMeta>, 'table' | 'noun'>, exists: (id: string) => Promise<boolean>): (ref: string) => Promise<string> {
  return async (ref) => {
    const id = parseInput(idSchema, ref, `${kind.noun[0]} reference`);
    if ((await exists(id)) || (await lastRevisionNumber(ctx.storage.records, ctx.env, kind, id)) > 0) return id;
    throw notFound(kind.noun[0], id);
  };
}
