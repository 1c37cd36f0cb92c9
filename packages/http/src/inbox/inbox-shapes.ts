import { type ActionButton, type Message, type Subscriber, type Workflow } from '@tidings/core';
import { isSnoozed } from '@tidings/core/internal';
import { type GlobalPreference, type Preferences, type WorkflowPreference } from '@tidings/core/schemas';

/** The workflow as Novu's Inbox shows it on notifications and preferences. */
export const inboxWorkflow = (workflow: Workflow) => ({
  id: workflow._id,
  identifier: workflow.identifier,
  name: workflow.name,
  critical: workflow.critical,
  tags: workflow.tags,
  severity: workflow.severity ?? 'none',
});

const SAFE_URL = /^(https?:\/\/|\/(?!\/))/i;

/** A redirect the client will follow: `http(s)://…` or a path starting with one `/` (as the client's own check). */
function redirect(url: string | undefined, target: string | undefined) {
  if (url === undefined || !SAFE_URL.test(url)) return undefined;
  return { url, ...(target !== undefined && { target }) };
}

function action(message: Message, button: ActionButton | undefined) {
  if (!button) return undefined;
  const done = message.cta.action?.status === 'done' && message.cta.action.result?.type === button.type;
  const to = redirect(button.url, button.target);
  return { label: button.content, isCompleted: done, ...(to && { redirect: to }) };
}

const body = (content: Message['content']) => (typeof content === 'string' ? content : content.map((block) => block.content).join('\n'));

/** A message as Novu's Inbox client reads it (its `InboxNotification`). */
export function inboxNotification(message: Message, subscriber: Subscriber, workflows: ReadonlyMap<string, Workflow>, now: string) {
  const buttons = message.cta.action?.buttons ?? [];
  const workflow = message._templateId ? workflows.get(message._templateId) : undefined;
  const primary = action(message, buttons.find((b) => b.type === 'primary'));
  const secondary = action(message, buttons.find((b) => b.type === 'secondary'));
  const to = redirect(message.cta.data?.url, message.cta.data?.target);
  return {
    id: message._id,
    transactionId: message.transactionId,
    ...(message.subject !== undefined && { subject: message.subject }),
    body: body(message.content),
    to: {
      id: subscriber._id,
      subscriberId: subscriber.subscriberId,
      ...Object.fromEntries((['firstName', 'lastName', 'avatar', 'locale', 'data', 'timezone', 'email', 'phone'] as const).filter((key) => subscriber[key] !== null).map((key) => [key, subscriber[key]])),
    },
    isRead: message.read,
    isSeen: message.seen,
    isArchived: message.archived,
    isSnoozed: isSnoozed(message, now),
    ...(message.snoozedUntil !== undefined && { snoozedUntil: message.snoozedUntil }),
    ...(message.expiresAt !== undefined && { expiresAt: message.expiresAt }),
    deliveredAt: message.deliveredAt,
    createdAt: message.createdAt,
    ...(message.read && message.lastReadDate !== undefined && { readAt: message.lastReadDate }),
    ...(message.firstSeenDate !== undefined && { firstSeenAt: message.firstSeenDate }),
    ...(message.archivedAt !== undefined && { archivedAt: message.archivedAt }),
    ...(message.avatar !== undefined && { avatar: message.avatar }),
    ...(primary && { primaryAction: primary }),
    ...(secondary && { secondaryAction: secondary }),
    channelType: 'in_app' as const,
    tags: message.tags,
    ...(message.data !== undefined && { data: message.data }),
    ...(to && { redirect: to }),
    ...(workflow && { workflow: inboxWorkflow(workflow) }),
    severity: message.severity ?? 'none',
  };
}

/**
 * The message as the socket's `notification_received` carries it: the raw message entity, with the
 * members Novu's client maps itself (`subscriber` and `workflow` as objects, `severity` on top).
 */
export function socketMessage(message: Message, subscriber: Subscriber, workflow: Workflow | undefined) {
  return {
    ...message,
    subscriber: { _id: subscriber._id, subscriberId: subscriber.subscriberId, firstName: subscriber.firstName, lastName: subscriber.lastName, avatar: subscriber.avatar },
    ...(workflow && { workflow: { _id: workflow._id, ...inboxWorkflow(workflow) } }),
  };
}

export const inboxGlobalPreference = (global: GlobalPreference) => ({
  level: 'global' as const,
  enabled: global.enabled,
  channels: global.channels,
  ...(global.schedule && { schedule: global.schedule }),
});

/** Tidings adds `digest` (the digest cadence in effect and those offered) for workflows whose digest the subscriber chooses. */
export const inboxWorkflowPreference = (preference: Pick<WorkflowPreference, 'enabled' | 'channels' | 'overrides' | 'digest'>, workflow: Workflow) => ({
  level: 'template' as const,
  enabled: preference.enabled,
  channels: preference.channels,
  overrides: preference.overrides,
  workflow: inboxWorkflow(workflow),
  ...(preference.digest && { digest: preference.digest }),
});

/** The preferences of the workflows `refs` names (id, identifier or slug), each as the Inbox shows it, in the order of `refs`. */
export function inboxPreferencesOf(workflows: readonly Workflow[], after: Pick<Preferences, 'workflows'>, refs: readonly string[]) {
  return refs.map((ref) => {
    const workflow = workflows.find((w) => w._id === ref || w.identifier === ref || w.slug === ref)!;
    return inboxWorkflowPreference(after.workflows.find((p) => p.workflow.identifier === workflow.identifier)!, workflow);
  });
}
