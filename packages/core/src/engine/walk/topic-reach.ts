import type { TopicReach } from '../../preferences/subscription-preferences.js';
import type { Notification, Subscriber, Topic } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { subscriptionKey, subscriptionsByKey } from '../topics/subscription-records.js';

/** One walk whose reach is read: its notification and subscriber. */
export interface ReachedWalk {
  readonly notification: Notification;
  readonly subscriber: Subscriber;
}

/** The reach of a walk (see `readTopicReach`); undefined when no subscription restricts it. */
export type ReachOf = (notification: Notification, subscriber: Subscriber) => TopicReach | undefined;

const NO_REACH: ReachOf = () => undefined;
const keyOf = (notification: Notification, subscriber: Subscriber) => `${notification._id}\u0000${subscriber._id}`;

/**
 * How each walk's trigger reached its subscriber through topics: the subscriptions of theirs it came
 * through, each with its preference for the notification's workflow. None for a trigger that named no
 * topic, for a subscriber it also named directly, for one without a subscription record to any of
 * its topics, and for a plain member (no record) of one of them: nothing of theirs restricts those.
 * Reads nothing unless some trigger named a topic.
 */
export async function readTopicReach(repos: Pick<StorageRepositories, 'topics' | 'records'>, env: string, walks: readonly ReachedWalk[]): Promise<ReachOf> {
  const through = walks.filter((w) => w.notification.topics && !w.notification.topics.direct.includes(w.subscriber.subscriberId));
  if (through.length === 0) return NO_REACH;
  const topicKeys = [...new Set(through.flatMap((w) => w.notification.topics!.keys))];
  const topics = new Map<string, Topic>();
  for (const topic of await Promise.all(topicKeys.map((key) => repos.topics.get(env, key)))) if (topic) topics.set(topic.key, topic);
  const wanted = new Set<string>();
  for (const w of through) for (const key of w.notification.topics!.keys) if (topics.has(key)) wanted.add(subscriptionKey(topics.get(key)!._id, w.subscriber._id));
  const records = await subscriptionsByKey(repos.records, env, [...wanted]);
  if (records.size === 0) return NO_REACH;
  const reach = new Map<string, TopicReach>();
  for (const { notification, subscriber } of through) {
    const keys = notification.topics!.keys.filter((key) => topics.has(key));
    const held = keys.flatMap((key) => records.get(subscriptionKey(topics.get(key)!._id, subscriber._id)) ?? []);
    if (held.length === 0) continue;
    // A topic of the trigger without a record of theirs: a plain membership there lets everything through.
    const unheld = keys.filter((key) => !held.some((r) => r.topicKey === key));
    const plain = await Promise.all(unheld.map((key) => repos.topics.getSubscription(env, key, subscriber.subscriberId)));
    if (plain.some((member) => member !== null)) continue;
    reach.set(keyOf(notification, subscriber), {
      paths: held.map((r) => ({ topicKey: r.topicKey, identifier: r.identifier, preference: r.preferences.find((p) => p.workflowId === notification._templateId) ?? null })),
    });
  }
  return (notification, subscriber) => reach.get(keyOf(notification, subscriber));
}
