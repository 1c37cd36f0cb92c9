import type { StorageRepositories } from '../../storage.js';
import type { JsonObject } from '../../schemas/index.js';
import type { TraceEntry } from '../../walk/trace.js';
import { decisionRecord } from '../../walk/trace.js';
import { stateAfterWait, type WaitResult } from '../../waits/wait-step.js';
import type { SignalEvent } from '../../waits/match-event.js';
import { newJob } from '../runtime/jobs.js';
import type { EngineContext } from '../context.js';
import { queueWebhookEvents } from '../webhooks/webhook-outbox.js';
import { TOKENS, tokenInput, waitTimeoutKey, type WaitRecord, type WaitToken } from './wait-records.js';

/** Moves the timeout jobs of ended waits to now (a keyed enqueue): each runs, finds its wait gone, and ends. */
export async function bringTimeoutsForward(tx: StorageRepositories, env: string, waits: readonly WaitRecord[], now: Date): Promise<void> {
  const at = now.toISOString();
  const jobs = waits.map((w) => newJob({ env, kind: 'wait', runAt: at, transactionId: w.transactionId, subscriberId: w.subscriberId, key: waitTimeoutKey(w.waitId), data: { waitId: w.waitId } }, now));
  if (jobs.length > 0) await tx.jobs.enqueue(env, jobs);
}

/** How a wait ended. */
export type WaitEnd =
  | { readonly kind: 'event'; readonly event: SignalEvent }
  | { readonly kind: 'token'; readonly output: JsonObject }
  | { readonly kind: 'timeout' };

const resultOf = (wait: WaitRecord, end: WaitEnd): WaitResult => {
  const ref = { id: wait.tokenId ?? '', url: wait.tokenUrl ?? '' };
  const token = wait.tokenId !== undefined ? { token: ref, ...ref } : {};
  if (end.kind === 'event') return { matched: true, event: { name: end.event.name, data: end.event.data, at: end.event.at } };
  if (end.kind === 'token') return { matched: true, token: ref, ...ref, output: end.output };
  return { matched: false, ...token } as WaitResult;
};

const what = (wait: WaitRecord) => (wait.kind === 'token' ? `token ${wait.tokenId}` : `event "${wait.event}"`);

/** What `explain` says of the end of a wait, and whether the walk goes on. */
function decide(wait: WaitRecord, end: WaitEnd): { entry: Omit<TraceEntry, 'stepIndex' | 'stepId' | 'type'>; goesOn: boolean } {
  if (end.kind === 'timeout') {
    const halt = wait.onTimeout === 'halt';
    return { goesOn: !halt, entry: { decision: halt ? 'skipped' : 'ran', reason: `no ${what(wait)} came before ${wait.timeoutAt}: ${halt ? 'the run ends here (onTimeout: halt)' : 'the run goes on (onTimeout: continue)'}` } };
  }
  const halt = end.kind === 'event' && wait.onEvent === 'halt';
  const came = end.kind === 'token' ? `token ${wait.tokenId} was completed` : `event "${end.event.name}" matched at ${end.event.at}`;
  return { goesOn: !halt, entry: { decision: halt ? 'skipped' : 'ran', reason: `${came}: ${halt ? 'the run ends here (onEvent: halt)' : 'the run goes on'}` } };
}

/**
 * Ends a wait its caller consumed (`consumeWait`), inside the caller's transaction: the walk goes on
 * from the step after it with the wait's result (`steps.<id>.*`), or the run ends there; the token is
 * marked; `explain` records why. A wait ended before its timeout brings its timeout job forward to
 * now (a keyed enqueue moves it), where it finds the wait gone and ends: no job of it lingers until
 * the timeout. Returns whether the walk goes on.
 */
export async function endWait(ctx: EngineContext, tx: StorageRepositories, wait: WaitRecord, end: WaitEnd, now: Date, by: string, hasTimeoutJob = true): Promise<boolean> {
  const { env } = ctx;
  const at = now.toISOString();
  if (wait.tokenId !== undefined) {
    const [stored] = await tx.records.get(env, TOKENS, [wait.tokenId]);
    if (stored) {
      const token = stored.doc as WaitToken;
      const done: WaitToken = end.kind === 'token' ? { ...token, status: 'completed', completedAt: at, output: end.output } : { ...token, status: 'timed_out', completedAt: at };
      await tx.records.put(env, TOKENS, [tokenInput(done)]);
    }
  }
  if (end.kind !== 'timeout' && hasTimeoutJob) await bringTimeoutsForward(tx, env, [wait], now);
  const { entry, goesOn } = decide(wait, end);
  const step = { stepIndex: wait.stepIndex, stepId: wait.stepId, type: 'wait' as const };
  await tx.traces.append([decisionRecord(env, { id: by, transactionId: wait.transactionId, subscriberId: wait.subscriberId }, at, [{ ...step, ...entry }])]);
  if (!goesOn) {
    // The run ends here, as a walk that ends does.
    await queueWebhookEvents(ctx, tx, [{ type: 'workflow.run.completed', data: { transactionId: wait.transactionId, subscriberId: wait.subscriberId } }]);
    return false;
  }
  const data = { ...wait.next, state: stateAfterWait(wait.next.state, wait, resultOf(wait, end)) };
  await tx.jobs.enqueue(env, [newJob({ env, kind: 'walk', runAt: at, transactionId: wait.transactionId, subscriberId: wait.subscriberId, data }, now)]);
  return true;
}
