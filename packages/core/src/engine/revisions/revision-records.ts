import { TidingsError } from '../../errors.js';
import { docsOf, firstDoc } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import type { WorkflowRevision } from '../../schemas/index.js';

/** Revisions of stored workflows: immutable, keyed by (workflow, number), indexed by workflow `_id` (i1) and identifier (i2). */
export const WORKFLOW_REVISIONS = 'workflow_revisions';

/** Numbers in byte order: a revision's sort value. */
const padded = (revision: number) => String(revision).padStart(10, '0');
const keyOf = (workflowId: string, revision: number) => `${workflowId}\u0001${padded(revision)}`;

/**
 * Stores a new revision; of two writers racing for one number one wins, and the other's whole change
 * is refused (`conflict`), since its workflow was read before the winner's.
 */
export async function storeRevision(records: RecordStore, env: string, revision: WorkflowRevision): Promise<void> {
  const record = { key: keyOf(revision.workflowId, revision.revision), i1: revision.workflowId, i2: revision.identifier, sort: padded(revision.revision), doc: revision };
  const stored = await records.insertNew(env, WORKFLOW_REVISIONS, [record]);
  if (stored.length === 0) throw new TidingsError('conflict', `workflow "${revision.identifier}" was changed by another call at the same time (revision ${revision.revision}); read it again and retry`);
}

/** The newest revision number of a workflow, or 0 when it has none. */
export async function lastRevisionNumber(records: RecordStore, env: string, workflowId: string): Promise<number> {
  return firstDoc<WorkflowRevision>(await records.find(env, WORKFLOW_REVISIONS, { i1: workflowId, order: 'desc', limit: 1 }))?.revision ?? 0;
}

/** A workflow's revisions, newest first, at most `limit`. */
export async function revisionsOf(records: RecordStore, env: string, workflowId: string, limit: number): Promise<WorkflowRevision[]> {
  return docsOf<WorkflowRevision>(await records.find(env, WORKFLOW_REVISIONS, { i1: workflowId, order: 'desc', limit }));
}

/** The revisions with these (workflow, number) pairs, by `keyOf`; missing ones are left out. */
export async function getRevisions(records: RecordStore, env: string, wanted: readonly { workflowId: string; revision: number }[]): Promise<Map<string, WorkflowRevision>> {
  if (wanted.length === 0) return new Map();
  const found = docsOf<WorkflowRevision>(await records.get(env, WORKFLOW_REVISIONS, wanted.map((w) => keyOf(w.workflowId, w.revision))));
  return new Map(found.map((r) => [keyOf(r.workflowId, r.revision), r] as const));
}

/** One revision, or null. */
export async function getRevision(records: RecordStore, env: string, workflowId: string, revision: number): Promise<WorkflowRevision | null> {
  return (await getRevisions(records, env, [{ workflowId, revision }])).get(keyOf(workflowId, revision)) ?? null;
}

/** The `_id` of the workflow whose revisions carry this identifier (newest first): history outlives a deletion. */
export async function workflowIdOfIdentifier(records: RecordStore, env: string, identifier: string): Promise<string | null> {
  return firstDoc<WorkflowRevision>(await records.find(env, WORKFLOW_REVISIONS, { i2: identifier, order: 'desc', limit: 1 }))?.workflowId ?? null;
}

export { keyOf as revisionKey };
