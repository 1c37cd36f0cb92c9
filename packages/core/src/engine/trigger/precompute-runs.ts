import type { Cap, Notification, ParsedBroadcastEvent, ParsedTriggerEvent, Subscriber, Workflow } from '../../schemas/index.js';
import { mergeSubscriber } from '../../subscribers/merge-subscriber.js';
import type { RecipientPlan } from '../../trigger/read-recipients.js';
import { subscriberWrites } from '../../trigger/subscriber-writes.js';
import type { PrecomputedRuns } from '../../walk/code-run-memo.js';
import type { EngineContext } from '../context.js';
import { loopYielder } from '../runtime/loop-yield.js';
import { capsInForce } from '../frequency/caps.js';
import { hasCatalogs } from '../translations/catalog-records.js';
import { runLocale } from '../../walk/walk-variables.js';
import { walksInline } from './inline-delivery.js';

/**
 * How long a trigger call waits, in all, for the runs of user code it makes before its transaction:
 * a slow resolver (one that awaits a service) delays its call this long at most, and its walk goes to
 * a job, later rather than failed.
 */
export const PRECOMPUTE_BUDGET_MS = 500;

/** What precomputing needs of a prepared event. */
export interface EventToPrecompute {
  readonly event: ParsedTriggerEvent | ParsedBroadcastEvent;
  readonly workflow: Workflow;
  readonly notification: Notification;
  readonly plan: RecipientPlan;
  /** A debounced event runs later, in its burst. */
  readonly held?: unknown;
}

/** A code workflow's runs for each subscriber an event names, made before the transaction. */
export type RunsBySubscriber = ReadonlyMap<string, PrecomputedRuns>;

/**
 * The events whose walks the call's transaction will store inline and that run the user's code, by
 * the transaction's own rule (`walksInline`, as if their runs were made): in order, each event whose
 * walks are stored inline takes room for its subscribers, and from the first that does not fit, every
 * later event goes to jobs. An event that reaches topics stops the choice (its audience is read in
 * the transaction). A debounced event is held, not walked.
 */
function eventsToPrecompute<P extends EventToPrecompute>(ctx: EngineContext, prepared: readonly P[], caps: readonly Cap[]): { p: P; subscriberIds: string[] }[] {
  const chosen: { p: P; subscriberIds: string[] }[] = [];
  let room = ctx.options.inlineLimit;
  for (const p of prepared) {
    if (p.held !== undefined || !walksInline(ctx, p.workflow, caps, 'trigger', true)) continue;
    if (p.plan.topics.length > 0 || p.plan.direct.length > room) break;
    room -= p.plan.direct.length;
    if (ctx.walker.runsUserCode(p.workflow) && p.plan.direct.length > 0) chosen.push({ p, subscriberIds: p.plan.direct.map((d) => d.subscriberId) });
  }
  return chosen;
}

/**
 * The subscribers as the call's transaction will leave them: the stored ones (read now) with the
 * call's writes (`subscriberWrites`) merged in order. The transaction makes its own; a walk whose
 * subscriber then differs replays nothing and goes to a job.
 */
async function subscribersAfterCall(ctx: EngineContext, events: readonly { event: EventToPrecompute['event']; plan: RecipientPlan | null }[], wanted: ReadonlySet<string>): Promise<Map<string, Subscriber>> {
  const made = { _id: '', now: ctx.now(), environmentId: ctx.env, organizationId: ctx.organizationId };
  const subscribers = new Map((await ctx.storage.subscribers.getMany(ctx.env, [...wanted])).map((s) => [s.subscriberId, s] as const));
  const stored = new Set(subscribers.keys());
  for (const { event, plan } of events) {
    if (!plan) continue;
    for (const patch of subscriberWrites(plan, 'actor' in event ? event.actor : undefined, stored)) {
      if (wanted.has(patch.subscriberId)) subscribers.set(patch.subscriberId, mergeSubscriber(subscribers.get(patch.subscriberId) ?? null, patch, made));
    }
  }
  return subscribers;
}

/**
 * Makes, before the call's write transaction, the runs of user code its inline walks would make
 * (see `Walker.precompute`), so that a code workflow of in-app steps stores its messages in the
 * trigger's transaction as a stored workflow does, instead of a job per walk. `outside` runs the user's
 * code apart from the commit group. Returns each event's runs by subscriber, where any were made: runs
 * that reject (past `stepTimeoutMs`, or past the call's budget) are not made, and their walk goes to
 * a job, which runs them again. A function that throws is a run made: its walk fails, as in a job.
 */
export async function precomputeRuns<P extends EventToPrecompute>(ctx: EngineContext, prepared: readonly P[], outside: <T>(work: () => Promise<T>) => Promise<T>): Promise<Map<P, RunsBySubscriber>> {
  const found = new Map<P, RunsBySubscriber>();
  const precompute = ctx.walker.precompute?.bind(ctx.walker);
  if (!precompute || !ctx.options.inlineInApp || !prepared.some((p) => ctx.walker.runsUserCode(p.workflow))) return found;
  const chosen = eventsToPrecompute(ctx, prepared, await capsInForce(ctx));
  if (chosen.length === 0) return found;
  const events = prepared.map((p) => ({ event: p.event, plan: p.held === undefined ? p.plan : null }));
  const subscribers = await subscribersAfterCall(ctx, events, new Set(chosen.flatMap((c) => c.subscriberIds)));
  // The locale the walk gives a run takes its form from whether the environment has catalogs (read again with the walk).
  const translated = await hasCatalogs(ctx.storage.records, ctx.env, ctx.options.translations);
  // The runs are user code: the event loop turns between them, as between a batch's walks, and the
  // call waits for them PRECOMPUTE_BUDGET_MS in all; walks whose runs are not made by then go to jobs.
  const breathe = loopYielder();
  let spent = false;
  let timer: NodeJS.Timeout | undefined;
  const budgetSpent = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      spent = true;
      resolve(null);
    }, PRECOMPUTE_BUDGET_MS);
  });
  try {
    for (const { p, subscriberIds } of chosen) {
      const runs = new Map<string, PrecomputedRuns>();
      found.set(p, runs);
      for (const subscriberId of subscriberIds) {
        await breathe();
        if (spent) return found;
        const subscriber = subscribers.get(subscriberId)!;
        const subject = { notification: p.notification, subscriber };
        const run = { locale: runLocale(subject, ctx.options.defaultLocale, translated), abandoned: () => spent };
        const made = await outside(() => Promise.race([precompute(p.workflow, subject, run), budgetSpent])).catch(() => null);
        if (made) runs.set(subscriberId, made);
      }
    }
  } finally {
    clearTimeout(timer);
  }
  return found;
}
