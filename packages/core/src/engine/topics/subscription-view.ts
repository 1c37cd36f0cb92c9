import { workflowChannels } from '../../preferences/resolve-preferences.js';
import { subscriptionChannelOn } from '../../preferences/subscription-preferences.js';
import type { SubscriptionPreferenceRecord, SubscriptionWorkflowPreference, TopicSubscriptionDetails, TopicSubscriptionRecord, Workflow } from '../../schemas/index.js';

/** A subscription preference as read: each channel the workflow's active steps use, on or off (all on when nothing is stored). */
export function workflowPreferenceView(workflow: Workflow, stored: SubscriptionPreferenceRecord | undefined): SubscriptionWorkflowPreference {
  const preference = stored ?? { enabled: true, channels: {} };
  return {
    workflowId: workflow._id,
    workflowIdentifier: workflow.identifier,
    enabled: preference.enabled,
    channels: Object.fromEntries(workflowChannels(workflow).map((channel) => [channel, subscriptionChannelOn(preference, channel)])),
    stored: stored !== undefined,
  };
}

/** What makes a subscription besides its record: the membership it is, and what a default one is called. */
export interface Membership {
  readonly id: string;
  readonly identifier: string;
  readonly topicKey: string;
  readonly subscriberId: string;
}

/**
 * A subscription as read: its stored preferences (of workflows that still exist), then those of the
 * `listed` workflows nothing is stored for, as they hold until something is.
 */
export function subscriptionDetails(membership: Membership, record: TopicSubscriptionRecord | null, workflows: readonly Workflow[], listed: readonly Workflow[] = []): TopicSubscriptionDetails {
  const byId = new Map(workflows.map((w) => [w._id, w] as const));
  const stored = (record?.preferences ?? []).flatMap((p) => {
    const workflow = byId.get(p.workflowId);
    return workflow ? [workflowPreferenceView(workflow, p)] : [];
  });
  const storedIds = new Set(stored.map((p) => p.workflowId));
  return {
    _id: record?._id ?? membership.id,
    identifier: record?.identifier ?? membership.identifier,
    ...(record?.name !== undefined && { name: record.name }),
    topicKey: membership.topicKey,
    subscriberId: membership.subscriberId,
    preferences: [...stored, ...listed.filter((w) => !storedIds.has(w._id)).map((w) => workflowPreferenceView(w, undefined))],
    ...(record && { createdAt: record.createdAt, updatedAt: record.updatedAt }),
  };
}
