import type { Channel, SubscriptionPreferenceRecord, Workflow } from '../schemas/index.js';

/** One topic a trigger reached the subscriber through, and what their subscription to it says of the workflow (null: nothing). */
export interface SubscriptionPath {
  readonly topicKey: string;
  readonly identifier: string;
  readonly preference: Pick<SubscriptionPreferenceRecord, 'enabled' | 'channels'> | null;
}

/**
 * How a trigger reached a subscriber when it reached them through topics alone, each by a
 * subscription of theirs. A subscriber named directly, or a plain member of one of the topics, has
 * no reach: no subscription of theirs restricts the trigger.
 */
export interface TopicReach {
  readonly paths: readonly SubscriptionPath[];
}

/** Whether a subscription preference lets a channel through: the workflow on, and the channel not turned off. */
export const subscriptionChannelOn = (preference: Pick<SubscriptionPreferenceRecord, 'enabled' | 'channels'>, channel: Channel): boolean =>
  preference.enabled && preference.channels[channel] !== false;

const describe = (path: SubscriptionPath) => `"${path.identifier}" to topic "${path.topicKey}"`;

/**
 * Whether a channel step may send for a subscriber the trigger reached through topics: it may when
 * any of the paths lets it through (one subscription is enough), and always for critical workflows.
 */
export function subscriptionPermitted(workflow: Pick<Workflow, 'critical'>, reach: TopicReach | undefined, channel: Channel): { allowed: true } | { allowed: false; reason: string } {
  if (!reach || reach.paths.length === 0 || workflow.critical) return { allowed: true };
  if (reach.paths.some((path) => path.preference === null || subscriptionChannelOn(path.preference, channel))) return { allowed: true };
  const off = reach.paths.map((path) => `${path.preference!.enabled ? `${channel} is off` : 'the workflow is off'} in the subscription ${describe(path)}`);
  return { allowed: false, reason: off.join('; ') };
}
