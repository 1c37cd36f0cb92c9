import { notFound } from '../../errors.js';
import { docsOf } from '../../records/docs.js';
import { DIGESTS } from '../../records/digests.js';
import { preferenceHistory } from '../preferences/preference-audit.js';
import type { Message, SubscriberExport } from '../../schemas/index.js';
import type { JsonObject } from '../../schemas/enums.js';
import { TOPIC_SUBSCRIPTIONS } from '../../records/topics.js';
import type { EngineContext } from '../context.js';
import { addressesOf } from './erase-subscriber.js';
import { subscriberTraces } from './subscriber-traces.js';

/** Topics read per page while finding the subscriber's memberships. */
const TOPIC_PAGE = 500;
/** Preference changes kept in an export, newest first: the history's own bound. */
const HISTORY = 10_000;

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as JsonObject;

/** Everything held about one subscriber, as one JSON document (see `subscriberExportSchema`). not_found when absent. */
export async function exportSubscriber(ctx: EngineContext, subscriberId: string): Promise<SubscriberExport> {
  const { storage, env } = ctx;
  const [subscriber] = await storage.subscribers.getMany(env, [subscriberId]);
  if (!subscriber) throw notFound('Subscriber', subscriberId);

  const ids = await storage.messages.idsMatching(env, subscriber._id, { now: '' });
  const messages: Message[] = [];
  for (let i = 0; i < ids.length; i += 500) messages.push(...(await storage.messages.getMany(env, subscriber._id, ids.slice(i, i + 500))));
  messages.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a._id < b._id ? -1 : 1));

  // Memberships have no index by subscriber: each topic of the environment is asked, a page at a time.
  const subscriptions = new Map((await storage.records.find(env, TOPIC_SUBSCRIPTIONS, { i2: subscriber._id })).map((r) => [String((r.doc as { _topicId?: unknown })._topicId), r.doc as JsonObject] as const));
  const topics: SubscriberExport['topics'] = [];
  for (let after: string | null = null; ; ) {
    const page = await storage.topics.list(env, { after, limit: TOPIC_PAGE });
    for (const topic of page) {
      if (!(await storage.topics.getSubscription(env, topic.key, subscriberId))) continue;
      const subscription = subscriptions.get(topic._id);
      topics.push({ topicKey: topic.key, ...(subscription && { subscription }) });
    }
    if (page.length < TOPIC_PAGE) break;
    after = page[page.length - 1]!.key;
  }

  const { decisions } = await subscriberTraces(storage.records, env, subscriberId);
  const jobs = await storage.jobs.list(env, { subscriberId });
  const digests = docsOf<JsonObject>(await storage.records.find(env, DIGESTS, { i3: subscriberId }));
  const transactionIds = [...new Set([...messages.map((m) => m.transactionId), ...decisions.map((d) => d.transactionId), ...jobs.map((j) => j.transactionId)])];
  const suppressions = (await Promise.all(addressesOf(subscriber).map(({ channel, address }) => storage.suppressions.find(env, channel, [address])))).flat();

  return {
    format: 'tidings.subscriber-export.v1',
    exportedAt: ctx.now(),
    environmentId: env,
    subscriber,
    preferences: await storage.preferences.list(env, subscriberId),
    preferenceChanges: await preferenceHistory(storage.records, env, subscriberId, HISTORY),
    topics,
    messages,
    notifications: await storage.notifications.getByTransactionIds(env, transactionIds),
    pending: { jobs: jobs.map(json), digests: digests.map(json) },
    decisions: decisions.map((d) => ({ transactionId: d.transactionId, jobId: d.jobId, at: d.at, entries: d.entries.map(json) })),
    suppressions,
  };
}
