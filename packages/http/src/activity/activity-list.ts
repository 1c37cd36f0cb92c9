import { type Message, type Notification, type Subscriber, type Tidings, type Workflow } from '@tidings/core';
import { stepIndexOf } from '@tidings/core/internal';
import type { ActivityQuery } from './activity-query.js';

/**
 * Most messages one list request reads while gathering a subscriber's notifications (the engine has no
 * read of notifications by subscriber, so they are found through the subscriber's messages, newest
 * first). Older notifications of a subscriber past it are not listed.
 */
export const MAX_SCANNED_MESSAGES = 5_000;
/**
 * Most notifications one request of the whole environment's list reads (newest first, within the
 * time bounds) while looking for those that pass its filters; older ones past it are not listed.
 */
export const MAX_SCANNED_NOTIFICATIONS = 1_000;
const SCAN_PAGE = 200;
const NOTIFICATION_PAGE = 50;
/** Characters of a message's content shown in the list. */
const SUMMARY_LENGTH = 160;

/** One notification as one subscriber had it: Novu's activity item is per (notification, subscriber). */
interface Activity {
  readonly notification: Notification;
  readonly subscriberId: string;
  readonly messages: Message[];
}

export interface ActivityPage {
  readonly data: Record<string, unknown>[];
  readonly page: number;
  readonly pageSize: number;
  readonly hasMore: boolean;
}

const pairKey = (notificationId: string, subscriberId: string) => `${notificationId}\u0000${subscriberId}`;

/**
 * Novu's activity list (`GET /v1/notifications`) over the engine's reads (`tidings.activity`): the notifications
 * of given transactions, of given subscribers (found through their messages, pending jobs and open
 * digests), or else of the whole environment (newest first), one item per notification and subscriber,
 * newest first, filtered, then paged.
 */
export async function listActivity(tidings: Tidings, query: ActivityQuery): Promise<ActivityPage> {
  const subscriberIds = [...new Set([...(query.subscriberIds ?? []), ...(query.subscriberId !== undefined ? [query.subscriberId] : [])])];
  const workflowIds = query.templates === undefined ? null : await workflowRefs(tidings, query.templates);
  const ofWorkflow = (n: Notification) => workflowIds === null || workflowIds.has(n._templateId) || workflowIds.has(n.templateIdentifier);
  const passes = ({ notification: n, messages }: Activity) =>
    (query.after === undefined || n.createdAt >= query.after) &&
    (query.before === undefined || n.createdAt <= query.before) &&
    ofWorkflow(n) &&
    (query.channels === undefined || messages.some((m) => query.channels!.includes(m.channel))) &&
    (query.status === undefined || messages.some((m) => query.status!.includes(m.status)));
  const { activities, truncated } =
    query.transactionId !== undefined
      ? { activities: await ofTransactions(tidings, [...new Set(query.transactionId)], subscriberIds.length > 0 ? new Set(subscriberIds) : null), truncated: false }
      : subscriberIds.length > 0
        ? await ofSubscribers(tidings, subscriberIds, query.after)
        : await ofEnvironment(tidings, query, ofWorkflow, passes);

  const kept = activities
    .filter(passes)
    // Triggers of one millisecond in the order they were made: their ids grow, their generated
    // transactionIds are random past the millisecond. The same order as notifications.list.
    .sort((a, b) => compare(b.notification.createdAt, a.notification.createdAt) || compare(b.notification._id, a.notification._id) || compare(a.subscriberId, b.subscriberId));

  const start = query.page * query.limit;
  const page = kept.slice(start, start + query.limit);
  const [subscribers, workflows] = await Promise.all([
    page.length === 0 ? [] : tidings.subscribers.getMany([...new Set(page.map((a) => a.subscriberId))]),
    page.length === 0 ? [] : tidings.activity.workflowsById([...new Set(page.map((a) => a.notification._templateId))]),
  ]);
  const subscriberOf = new Map(subscribers.map((s) => [s.subscriberId, s]));
  const workflowOf = new Map(workflows.map((w) => [w._id, w]));
  return {
    data: page.map((a) => activityToWire(a, subscriberOf.get(a.subscriberId), workflowOf.get(a.notification._templateId))),
    page: query.page,
    pageSize: query.limit,
    // A truncated scan may have left older notifications out: the last page says there may be more.
    hasMore: kept.length > start + query.limit || (truncated && page.length > 0),
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The `_id`s and identifiers the `templates` filter names (a ref may be an `_id`, identifier or slug). */
async function workflowRefs(tidings: Tidings, refs: readonly string[]): Promise<Set<string>> {
  const found = await Promise.all(refs.map((ref) => tidings.workflows.get(ref)));
  return new Set([...refs, ...found.flatMap((w) => (w ? [w._id, w.identifier] : []))]);
}

/**
 * The environment's notifications newest first, within the time bounds, read a page at a time until
 * the items of the page asked for (and one more, for `hasMore`) pass the filters, or
 * MAX_SCANNED_NOTIFICATIONS were read.
 */
async function ofEnvironment(tidings: Tidings, query: ActivityQuery, ofWorkflow: (n: Notification) => boolean, passes: (a: Activity) => boolean): Promise<{ activities: Activity[]; truncated: boolean }> {
  const wanted = (query.page + 1) * query.limit + 1;
  const activities: Activity[] = [];
  let scanned = 0;
  let cursor: string | undefined;
  for (;;) {
    const limit = Math.min(NOTIFICATION_PAGE, MAX_SCANNED_NOTIFICATIONS - scanned);
    const page = await tidings.activity.notifications({ limit, ...(cursor !== undefined && { cursor }), ...(query.after !== undefined && { createdGte: query.after }), ...(query.before !== undefined && { createdLte: query.before }) });
    scanned += page.items.length;
    const transactionIds = page.items.filter(ofWorkflow).map((n) => n.transactionId);
    if (transactionIds.length > 0) activities.push(...(await ofTransactions(tidings, transactionIds, null)).filter(passes));
    if (page.nextCursor === null || activities.length >= wanted) return { activities, truncated: false };
    if (scanned >= MAX_SCANNED_NOTIFICATIONS) return { activities, truncated: true };
    cursor = page.nextCursor;
  }
}

/** Every subscriber each trigger reached or will reach: by its messages, decision records, jobs and digests. */
async function ofTransactions(tidings: Tidings, transactionIds: readonly string[], only: ReadonlySet<string> | null): Promise<Activity[]> {
  const perTransaction = await Promise.all(
    transactionIds.map(async (transactionId) => {
      const found = await tidings.activity.transaction(transactionId);
      if (!found) return [];
      const { notification, messages, jobs, digests } = found;
      const records = await tidings.explain(transactionId);
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
        .map((subscriberId) => ({ notification, subscriberId, messages: messages.filter((m) => m.subscriberId === subscriberId) }));
    }),
  );
  return perTransaction.flat();
}

/**
 * The notifications of these subscribers: those that left them a message (read from their messages,
 * newest first, at most MAX_SCANNED_MESSAGES in all), and those still under way for them (a walk job,
 * an open digest). A trigger that left a subscriber nothing but skipped steps has no such trace and is
 * not found this way.
 */
async function ofSubscribers(tidings: Tidings, subscriberIds: readonly string[], after: string | undefined): Promise<{ activities: Activity[]; truncated: boolean }> {
  const subscribers = subscriberIds.length === 0 ? [] : await tidings.subscribers.getMany(subscriberIds);
  const pairs = new Map<string, { notificationId: string; subscriberId: string; messages: Message[] }>();
  const add = (notificationId: string, subscriberId: string, message?: Message) => {
    const key = pairKey(notificationId, subscriberId);
    let pair = pairs.get(key);
    if (!pair) pairs.set(key, (pair = { notificationId, subscriberId, messages: [] }));
    if (message) pair.messages.push(message);
  };
  let budget = MAX_SCANNED_MESSAGES;
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
      const page = await tidings.activity.subscriberMessages(subscriber.subscriberId, { limit, ...(cursor !== undefined && { cursor }), ...(after !== undefined && { createdGte: after }) });
      budget -= page.items.length;
      for (const m of page.items) add(m._notificationId, subscriber.subscriberId, m);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    const { jobs, digests } = await tidings.activity.subscriberPending(subscriber.subscriberId);
    for (const j of jobs) if (j.kind === 'walk') add(j.data.notificationId, subscriber.subscriberId);
    for (const d of digests) for (const e of d.events) add(e.notificationId, subscriber.subscriberId);
  }
  const notificationIds = [...new Set([...pairs.values()].map((p) => p.notificationId))];
  const notifications = await tidings.activity.notificationsById(notificationIds);
  const byId = new Map(notifications.map((n) => [n._id, n]));
  const activities = [...pairs.values()].flatMap(({ notificationId, subscriberId, messages }) => {
    const notification = byId.get(notificationId);
    // Oldest first, as listByTransaction reads them.
    return notification ? [{ notification, subscriberId, messages: messages.reverse() }] : [];
  });
  return { activities, truncated };
}

/** A message's content in one line of at most SUMMARY_LENGTH characters. */
export function contentSummary(message: Pick<Message, 'content'>): string {
  const text = (typeof message.content === 'string' ? message.content : message.content.map((block) => block.content).join(' ')).replace(/\s+/g, ' ').trim();
  return text.length > SUMMARY_LENGTH ? `${text.slice(0, SUMMARY_LENGTH - 1)}…` : text;
}

/**
 * An activity item as Novu's ActivityNotificationResponseDto has it (`_id`, `_subscriberId`,
 * `transactionId`, `channels`, `subscriber`, `template`, `payload`, `createdAt`; the members its SDK
 * requires are always there), with Tidings's `templateIdentifier` and `messages` in place of Novu's
 * `jobs`: one per message, with its step, channel, status, provider ids and a summary of its content.
 */
function activityToWire({ notification: n, subscriberId, messages }: Activity, subscriber: Subscriber | undefined, workflow: Workflow | undefined): Record<string, unknown> {
  const internalId = subscriber?._id ?? messages[0]?._subscriberId ?? '';
  return {
    _id: n._id,
    _environmentId: n._environmentId,
    _organizationId: n._organizationId,
    _subscriberId: internalId,
    _templateId: n._templateId,
    templateIdentifier: n.templateIdentifier,
    transactionId: n.transactionId,
    createdAt: n.createdAt,
    channels: [...new Set(messages.map((m) => m.channel))],
    subscriber: {
      _id: internalId,
      subscriberId,
      ...(subscriber?.firstName != null && { firstName: subscriber.firstName }),
      ...(subscriber?.lastName != null && { lastName: subscriber.lastName }),
      ...(subscriber?.email != null && { email: subscriber.email }),
      ...(subscriber?.phone != null && { phone: subscriber.phone }),
    },
    ...(workflow && { template: { _id: workflow._id, name: workflow.name, triggers: workflow.triggers } }),
    payload: n.payload,
    ...(n.tenantId !== null && { tenantId: n.tenantId }),
    ...(n.actorId !== null && { actorId: n.actorId }),
    messages: messages.map((m) => ({
      _id: m._id,
      stepIndex: stepIndexOf(m),
      channel: m.channel,
      status: m.status,
      createdAt: m.createdAt,
      ...(m.subject !== undefined && { subject: m.subject }),
      ...(m.title !== undefined && { title: m.title }),
      content: contentSummary(m),
      ...(m.providerId !== undefined && { providerId: m.providerId }),
      ...(m.providerMessageId !== undefined && { providerMessageId: m.providerMessageId }),
      ...(m.errorId !== undefined && { errorId: m.errorId }),
      ...(m.errorText !== undefined && { errorText: m.errorText }),
      read: m.read,
      seen: m.seen,
      archived: m.archived,
    })),
  };
}
