import { deterministicId } from '../ids.js';
import type { Message, MessageStatus, Notification, Subscriber, Workflow } from '../schemas/index.js';
import type { Delivery } from '../trigger/walk-steps.js';

/**
 * A message id from (notification, subscriber, step): running the same job twice yields the same id,
 * so the storage keeps one message. It starts with the notification id's time and counter, so
 * messages created in the same millisecond still sort in the order of their triggers and steps.
 */
export function messageId(notificationId: string, subscriberInternalId: string, stepIndex: number): string {
  const step = Math.min(stepIndex, 0xfff).toString(16).padStart(3, '0');
  return notificationId.slice(0, 8) + notificationId.slice(18, 24) + step + deterministicId(notificationId, subscriberInternalId, stepIndex).slice(0, 7);
}

/** The message record of one delivery. */
export function buildMessage(
  delivery: Delivery,
  context: { workflow: Workflow; notification: Notification; subscriber: Subscriber; now: string; status: MessageStatus },
): Message {
  const { workflow, notification, subscriber, now, status } = context;
  const { rendered, step, channel } = delivery;
  return {
    _id: messageId(notification._id, subscriber._id, delivery.stepIndex),
    _templateId: workflow._id,
    _environmentId: notification._environmentId,
    _messageTemplateId: step._templateId ?? step._id ?? null,
    _organizationId: notification._organizationId,
    _notificationId: notification._id,
    _subscriberId: subscriber._id,
    subscriberId: subscriber.subscriberId,
    templateIdentifier: workflow.identifier,
    createdAt: now,
    deliveredAt: status === 'sent' ? [now] : [],
    content: rendered.content,
    transactionId: notification.transactionId,
    channel,
    read: false,
    seen: false,
    archived: false,
    cta: rendered.cta,
    _feedId: null,
    status,
    payload: notification.payload,
    overrides: notification.overrides,
    contextKeys: Object.keys(notification.context),
    tags: workflow.tags,
    ...(rendered.subject !== undefined && { subject: rendered.subject }),
    ...(rendered.title !== undefined && { title: rendered.title }),
    ...(rendered.avatar !== undefined && { avatar: rendered.avatar }),
    ...(channel === 'email' && subscriber.email ? { email: subscriber.email } : {}),
    ...(channel === 'sms' && subscriber.phone ? { phone: subscriber.phone } : {}),
  };
}
