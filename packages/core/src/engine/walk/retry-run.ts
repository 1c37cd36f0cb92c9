import { stepIndexOf } from '../../messages/build-message.js';
import type { Job, Message, WalkJobData } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { groupBy } from '../../util/group-by.js';
import type { WalkResult } from '../../walk/walker.js';

/**
 * A message that failed for good and no provider took: `error` without a provider's id. One a provider
 * accepted and later reported bounced or failed is not sent again: the provider did send it.
 */
export const neverAccepted = (m: Message) => m.status === 'error' && m.providerMessageId === undefined;

/**
 * The walk a retry run makes: a retry `alone` makes the retried step and nothing after it (those steps
 * ran already); a hold of that step by the subscriber's schedule still waits for the opening.
 */
export function retryScope(data: WalkJobData, walk: WalkResult): WalkResult {
  const { retry } = data;
  if (!retry?.alone || data.stepIndex !== retry.stepIndex) return walk;
  const { digest: _digest, throttle: _throttle, http: _http, ...rest } = walk;
  return {
    ...rest,
    deliveries: walk.deliveries.filter((d) => d.stepIndex === retry.stepIndex),
    trace: walk.trace.filter((e) => e.stepIndex === retry.stepIndex),
    resume: walk.resume?.stepIndex === retry.stepIndex ? walk.resume : null,
  };
}

/**
 * Whether a walk run may send again a message stored before: a run after a failed one (a first run
 * has neither an attempt before it nor an error).
 */
const afterFailure = (job: Job) => job.attempts > 1 || job.lastError !== null;

/**
 * Inside a batch's commit, before its messages are stored: deletes the stored messages that the
 * batch's runs made again and that give way to the new ones (same ids), so those are stored, and
 * announced, as any new message: the failed messages of retry runs, and the messages whose send's
 * outcome was unknown that a run after the long back-off sent again and got the provider's answer
 * for. A message no longer `error` (a racing retry sent it), or one made again with its outcome
 * still unknown, is kept, and the new one with its id is then ignored as a duplicate.
 */
export async function clearRetriedErrors(tx: StorageRepositories, env: string, results: readonly { job: Job; messages: readonly Message[] }[]): Promise<void> {
  const remade = results.flatMap(({ job, messages }) => {
    const retry = job.kind === 'walk' ? job.data.retry : undefined;
    return retry ? messages.filter((m) => stepIndexOf(m) === retry.stepIndex) : [];
  });
  for (const [subscriberInternalId, group] of groupBy(remade, (m) => m._subscriberId)) {
    const stored = await tx.messages.getMany(env, subscriberInternalId, group.map((m) => m._id));
    const failed = stored.filter(neverAccepted).map((m) => m._id);
    if (failed.length > 0) await tx.messages.deleteMany(env, subscriberInternalId, failed);
  }
  const answered = results.flatMap(({ job, messages }) => (job.kind === 'walk' && afterFailure(job) ? messages.filter((m) => m.channel !== 'in_app' && m.outcome === undefined) : []));
  for (const [subscriberInternalId, group] of groupBy(answered, (m) => m._subscriberId)) {
    const unknown = (await tx.messages.getMany(env, subscriberInternalId, group.map((m) => m._id))).filter((m) => m.outcome === 'unknown').map((m) => m._id);
    if (unknown.length > 0) await tx.messages.deleteMany(env, subscriberInternalId, unknown);
  }
}
