import { stepIndexOf } from '../../messages/build-message.js';
import { CHANNELS, activityListQuerySchema, type ActivityItem, type ActivityList, type ActivityListQuery, type Channel, type Message, type Notification, type SkippedStep } from '../../schemas/index.js';
import type { DecisionRecord } from '../../walk/trace.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';

/**
 * Most messages one list call reads while gathering subscribers' notifications (the engine has no
 * read of notifications by subscriber, so they are found through the subscribers' messages, newest
 * first); as many of their skipped steps are read. Older notifications of theirs past it are not listed.
 */
export const MAX_SCANNED_MESSAGES = 5_000;
/**
 * Most notifications one list call of the whole environment reads (newest first, within the time
 * bounds) while looking for those that pass its filters; older ones past it are not listed.
 */
export const MAX_SCANNED_NOTIFICATIONS = 1_000;
const SCAN_PAGE = 200;
const NOTIFICATION_PAGE = 50;

/** One notification and one subscriber, before their records are read. */
interface Pair {
  readonly notification: Notification;
  readonly subscriberId: string;
  readonly messages: Message[];
  /** Their decision records, when read (every pair of a trigger read whole; a subscriber's only when it skipped). */
  readonly records: readonly DecisionRecord[];
}

const isChannel = (type: string): type is Channel => (CHANNELS as readonly string[]).includes(type);
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The channel steps the records left skipped, by their latest decision (a step retried and then
 * sent is not skipped), leaving out any that made a message.
 */
export function skippedSteps(records: readonly DecisionRecord[], messages: readonly Message[]): SkippedStep[] {
  const latest = new Map<number, SkippedStep | null>();
  for (const record of records) {
    for (const entry of record.entries) {
      if (!isChannel(entry.type)) continue;
      latest.set(entry.stepIndex, entry.decision === 'skipped' ? { stepIndex: entry.stepIndex, channel: entry.type, reason: entry.reason, at: record.at } : null);
    }
  }
  const made = new Set(messages.map(stepIndexOf));
  return [...latest.values()].filter((s): s is SkippedStep => s !== null && !made.has(s.stepIndex)).sort((a, b) => a.stepIndex - b.stepIndex);
}

/**
 * The activity list (`tidings.activity.list`): the notifications of given triggers, of given
 * subscribers (found through their messages, pending jobs, open digests and skipped steps), or of the
 * whole environment, one item per notification and subscriber, newest first, filtered, then paged.
 */
export function activityList(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function list(input: ActivityListQuery = {}): Promise<ActivityList> {
    const query = parseInput(activityListQuerySchema, input, 'activity list query');
    const workflowIds = query.workflows === undefined ? null : await workflowRefs(query.workflows);
    const ofWorkflow = (n: Notification) => workflowIds === null || workflowIds.has(n._templateId) || workflowIds.has(n.templateIdentifier);
    const stepMatches = (channel: Channel, status: string) => (query.channels === undefined || query.channels.includes(channel)) && (query.statuses === undefined || (query.statuses as readonly string[]).includes(status));
    const passes = (item: ActivityItem) =>
      (query.after === undefined || item.notification.createdAt >= query.after) &&
      (query.before === undefined || item.notification.createdAt <= query.before) &&
      ofWorkflow(item.notification) &&
      ((query.channels === undefined && query.statuses === undefined) || item.messages.some((m) => stepMatches(m.channel, m.status)) || item.skipped.some((s) => stepMatches(s.channel, 'skipped')));
    const subscriberIds = query.subscriberIds ?? [];
    const { pairs, truncated } =
      query.transactionIds !== undefined
        ? { pairs: await ofTransactions([...new Set(query.transactionIds)], subscriberIds.length > 0 ? new Set(subscriberIds) : null), truncated: false }
        : subscriberIds.length > 0
          ? await ofSubscribers([...new Set(subscriberIds)], query.after)
          : await ofEnvironment(query.page, query.limit, query.after, query.before, ofWorkflow, passes);

    const kept = pairs
      .map(itemOf)
      .filter(passes)
      // Triggers of one millisecond in the order they were made: their ids grow, their generated
      // transactionIds are random past the millisecond. The same order as notifications.list.
      .sort((a, b) => compare(b.notification.createdAt, a.notification.createdAt) || compare(b.notification._id, a.notification._id) || compare(a.subscriberId, b.subscriberId));
    const start = query.page * query.limit;
    const page = kept.slice(start, start + query.limit);
    const [subscribers, workflows] = await Promise.all([
      page.length === 0 ? [] : storage.subscribers.getMany(env, [...new Set(page.map((a) => a.subscriberId))]),
      page.length === 0 ? [] : storage.workflows.getMany(env, [...new Set(page.map((a) => a.notification._templateId))]),
    ]);
    const subscriberOf = new Map(subscribers.map((s) => [s.subscriberId, s]));
    const workflowOf = new Map(workflows.map((w) => [w._id, w]));
    return {
      items: page.map((item) => ({ ...item, subscriber: subscriberOf.get(item.subscriberId) ?? null, workflow: workflowOf.get(item.notification._templateId) ?? null })),
      page: query.page,
      limit: query.limit,
      // A truncated scan may have left older notifications out: the last page says there may be more.
      hasMore: kept.length > start + query.limit || (truncated && page.length > 0),
    };
  }

  /** An item without its subscriber and workflow records (read for the page alone). */
  const itemOf = ({ notification, subscriberId, messages, records }: Pair): ActivityItem => ({ notification, subscriberId, subscriber: null, workflow: null, messages, skipped: skippedSteps(records, messages) });

  /** The `_id`s and identifiers the `workflows` filter names (a ref may be an `_id`, identifier or slug). */
  async function workflowRefs(refs: readonly string[]): Promise<Set<string>> {
    const found = await Promise.all(refs.map((ref) => storage.workflows.find(env, ref)));
    return new Set([...refs, ...found.flatMap((w) => (w ? [w._id, w.identifier] : []))]);
  }

  /**
   * The environment's notifications newest first, within the time bounds, read a page at a time until
   * the items of the page asked for (and one more, for `hasMore`) pass the filters, or
   * MAX_SCANNED_NOTIFICATIONS were read.
   */
  async function ofEnvironment(pageIndex: number, limit: number, after: string | undefined, before: string | undefined, ofWorkflow: (n: Notification) => boolean, passes: (item: ActivityItem) => boolean): Promise<{ pairs: Pair[]; truncated: boolean }> {
    const wanted = (pageIndex + 1) * limit + 1;
    const pairs: Pair[] = [];
    let scanned = 0;
    let cursor: string | undefined;
    for (;;) {
      const page = await storage.notifications.list(env, { limit: Math.min(NOTIFICATION_PAGE, MAX_SCANNED_NOTIFICATIONS - scanned), ...(cursor !== undefined && { cursor }), ...(after !== undefined && { createdGte: after }), ...(before !== undefined && { createdLte: before }) });
      scanned += page.items.length;
      const transactionIds = page.items.filter(ofWorkflow).map((n) => n.transactionId);
      if (transactionIds.length > 0) pairs.push(...(await ofTransactions(transactionIds, null)).filter((pair) => passes(itemOf(pair))));
      if (page.nextCursor === null || pairs.length >= wanted) return { pairs, truncated: false };
      if (scanned >= MAX_SCANNED_NOTIFICATIONS) return { pairs, truncated: true };
      cursor = page.nextCursor;
    }
  }

  /** Every subscriber each trigger reached or will reach: by its messages, decision records, jobs and digests. */
  async function ofTransactions(transactionIds: readonly string[], only: ReadonlySet<string> | null): Promise<Pair[]> {
    const notifications = await storage.notifications.getByTransactionIds(env, transactionIds);
    const perTransaction = await Promise.all(
      notifications.map(async (notification) => {
        const { transactionId } = notification;
        const [messages, jobs, digests, records] = await Promise.all([
          storage.messages.listByTransaction(env, transactionId),
          storage.jobs.list(env, { transactionId }),
          storage.digests.listOpen(env, { transactionId }),
          storage.traces.list(env, transactionId),
        ]);
        const reached = new Set<string>();
        for (const m of messages) reached.add(m.subscriberId);
        for (const r of records) reached.add(r.subscriberId);
        for (const j of jobs) {
          if (j.kind === 'walk') reached.add(j.subscriberId);
          // A fan-out chunk not yet run: its members' walks are still to start (a page of a topic is read when it runs).
          if (j.kind === 'fanout' && 'subscriberIds' in j.data) for (const s of j.data.subscriberIds) reached.add(s);
        }
        for (const d of digests) reached.add(d.subscriberId);
        return [...reached]
          .filter((s) => only === null || only.has(s))
          .map((subscriberId) => ({ notification, subscriberId, messages: messages.filter((m) => m.subscriberId === subscriberId), records: records.filter((r) => r.subscriberId === subscriberId) }));
      }),
    );
    return perTransaction.flat();
  }

  /**
   * The notifications of these subscribers: those that left them a message (read from their messages,
   * newest first, at most MAX_SCANNED_MESSAGES in all), those still under way for them (a walk job, an
   * open digest), and those that skipped a channel step of theirs (as many at most).
   */
  async function ofSubscribers(subscriberIds: readonly string[], after: string | undefined): Promise<{ pairs: Pair[]; truncated: boolean }> {
    const subscribers = await storage.subscribers.getMany(env, subscriberIds);
    /** Under way or messaged: by notification id and subscriber. */
    const reached = new Map<string, { notificationId: string; subscriberId: string; messages: Message[] }>();
    const add = (notificationId: string, subscriberId: string, message?: Message) => {
      const key = `${notificationId}\u0000${subscriberId}`;
      let pair = reached.get(key);
      if (!pair) reached.set(key, (pair = { notificationId, subscriberId, messages: [] }));
      if (message) pair.messages.push(message);
    };
    /** Skipped a channel step of theirs: by transactionId and subscriber. */
    const skips: { transactionId: string; subscriberId: string }[] = [];
    let budget = MAX_SCANNED_MESSAGES;
    let skipBudget = MAX_SCANNED_MESSAGES;
    let truncated = false;
    for (const subscriber of subscribers) {
      let cursor: string | undefined;
      do {
        const limit = Math.min(SCAN_PAGE, budget);
        if (limit === 0) {
          truncated = true;
          break;
        }
        // A message is made at or after its notification: `after` already bounds the messages to read.
        const page = await storage.messages.feed(env, subscriber._id, { limit, now: ctx.now(), ...(cursor !== undefined && { cursor }), ...(after !== undefined && { createdGte: after }) });
        budget -= page.items.length;
        for (const m of page.items) add(m._notificationId, subscriber.subscriberId, m);
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      const [jobs, digests, skipped] = await Promise.all([
        storage.jobs.list(env, { subscriberId: subscriber.subscriberId }),
        storage.digests.listOpen(env, { subscriberId: subscriber.subscriberId }),
        skipBudget === 0 ? [] : storage.traces.skippedFor(env, subscriber.subscriberId, { ...(after !== undefined && { since: after }), limit: skipBudget }),
      ]);
      for (const j of jobs) if (j.kind === 'walk') add(j.data.notificationId, subscriber.subscriberId);
      for (const d of digests) for (const e of d.events) add(e.notificationId, subscriber.subscriberId);
      if (skipped.length === skipBudget) truncated = true;
      skipBudget -= skipped.length;
      for (const { transactionId } of skipped) skips.push({ transactionId, subscriberId: subscriber.subscriberId });
    }
    const [byId, byTransaction] = await Promise.all([
      reached.size === 0 ? [] : storage.notifications.getMany(env, [...new Set([...reached.values()].map((p) => p.notificationId))]),
      skips.length === 0 ? [] : storage.notifications.getByTransactionIds(env, [...new Set(skips.map((s) => s.transactionId))]),
    ]).then(([a, b]) => [new Map(a.map((n) => [n._id, n])), new Map(b.map((n) => [n.transactionId, n]))] as const);
    const pairs = new Map<string, { notification: Notification; subscriberId: string; messages: Message[]; skipped: boolean }>();
    for (const { notificationId, subscriberId, messages } of reached.values()) {
      const notification = byId.get(notificationId);
      // Oldest first, as listByTransaction reads them.
      if (notification) pairs.set(`${notification._id}\u0000${subscriberId}`, { notification, subscriberId, messages: messages.reverse(), skipped: false });
    }
    for (const { transactionId, subscriberId } of skips) {
      const notification = byTransaction.get(transactionId);
      if (!notification) continue;
      const key = `${notification._id}\u0000${subscriberId}`;
      pairs.set(key, { ...(pairs.get(key) ?? { notification, subscriberId, messages: [] }), skipped: true });
    }
    // Only pairs that skipped a step have records to read: the others' items have no skipped step.
    const read = await Promise.all(
      [...pairs.values()].map(async ({ notification, subscriberId, messages, skipped }) => ({
        notification,
        subscriberId,
        messages,
        records: skipped ? await storage.traces.list(env, notification.transactionId, subscriberId) : [],
      })),
    );
    return { pairs: read, truncated };
  }

  return list;
}
