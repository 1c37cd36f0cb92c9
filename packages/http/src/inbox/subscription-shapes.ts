import type { Workflow } from '@tidings/core';
import type { SubscriptionWorkflowPreference, TopicSubscriptionDetails } from '@tidings/core/schemas';
import { inboxWorkflow } from './inbox-shapes.js';

/**
 * A subscription preference as Novu's client reads it (`SubscriptionPreferenceResponse`):
 * `subscriptionId` is the subscription's identifier, which the client's cache matches preferences by.
 * The channels ride along, as in the answer to Novu's preference route.
 */
export const inboxSubscriptionPreference = (identifier: string, preference: SubscriptionWorkflowPreference, workflow: Workflow) => ({
  level: 'template' as const,
  subscriptionId: identifier,
  enabled: preference.enabled,
  channels: preference.channels,
  workflow: inboxWorkflow(workflow),
});

/** A topic subscription as Novu's client reads it (`SubscriptionResponse`); the client adds the topic key itself. */
export function inboxSubscription(subscription: TopicSubscriptionDetails, workflows: ReadonlyMap<string, Workflow>) {
  return {
    id: subscription._id,
    identifier: subscription.identifier,
    ...(subscription.name !== undefined && { name: subscription.name }),
    topicKey: subscription.topicKey,
    // A workflow deleted since is not listed: the client shows a preference by its workflow.
    preferences: subscription.preferences.flatMap((p) => {
      const workflow = workflows.get(p.workflowId);
      return workflow ? [inboxSubscriptionPreference(subscription.identifier, p, workflow)] : [];
    }),
  };
}
