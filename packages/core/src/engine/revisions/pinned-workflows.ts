import type { RecordStore } from '../../records/record-store.js';
import type { Notification, Workflow } from '../../schemas/index.js';
import { getRevisions, revisionKey } from './revision-records.js';

/** The workflow a notification's run walks, or undefined when its workflow no longer exists. */
export type WorkflowOf = (notification: Pick<Notification, '_templateId' | 'revision'>) => Workflow | undefined;

/** Whether a run of this notification walks a stored revision other than the current workflow. */
const pinnedElsewhere = (notification: Pick<Notification, 'revision'>, current: Workflow | undefined): notification is { revision: number } =>
  current !== undefined && current.runs !== 'latest' && typeof notification.revision === 'number' && notification.revision !== current.revision;

/**
 * The workflow each notification's run walks: the revision its trigger used (`runs: 'pinned'`, the
 * default), or the workflow as it is now when it runs `latest`, was triggered before revisions were
 * kept, or is written in code (whose revision is the process's; the code walker checks a run's place
 * in it). A deleted workflow ends its runs. Reads the pinned revisions in one round trip.
 */
export async function pinnedWorkflows(records: RecordStore, env: string, notifications: Iterable<Notification>, current: ReadonlyMap<string, Workflow>): Promise<WorkflowOf> {
  const wanted = new Map<string, { workflowId: string; revision: number }>();
  for (const n of notifications) {
    if (pinnedElsewhere(n, current.get(n._templateId))) wanted.set(revisionKey(n._templateId, n.revision), { workflowId: n._templateId, revision: n.revision });
  }
  const revisions = await getRevisions(records, env, [...wanted.values()]);
  return (n) => {
    const now = current.get(n._templateId);
    // A revision missing from the store (never the case for one the engine recorded) walks the workflow as it is.
    return pinnedElsewhere(n, now) ? revisions.get(revisionKey(n._templateId, n.revision))?.workflow ?? now : now;
  };
}
