import type { Message, MessageStatus, Notification, Subscriber, Workflow } from '../schemas/index.js';
import { contextKeys } from '../contexts/context-keys.js';
import type { Delivery } from '../walk/walker.js';
import { withExpiry } from './expiry.js';

/**
 * A message id from (notification, step, subscriber): running the same job twice yields the same id,
 * so the storage keeps one message. Made of the ids themselves, not a hash, so two deliveries can
 * never collide; it starts with the notification id (time, process, counter), so messages created in
 * the same millisecond still sort in the order of their triggers and steps.
 */
export function messageId(notificationId: string, subscriberInternalId: string, stepIndex: number): string {
  return `${notificationId}${stepIndex.toString(16).padStart(3, '0')}${subscriberInternalId}`;
}

/** The step index a message id holds (see `messageId`; a fallback's id starts with its step's); 0 for an id made otherwise. */
export function stepIndexOf(message: Pick<Message, '_id' | '_notificationId'>): number {
  if (!message._id.startsWith(message._notificationId)) return 0;
  const index = Number.parseInt(message._id.slice(message._notificationId.length, message._notificationId.length + 3), 16);
  return Number.isNaN(index) ? 0 : index;
}

/**
 * The payload a message keeps: the event's, without `attachments` (files are for the provider that
 * sends them, not for the feed, as in Novu).
 */
function storedPayload(payload: Notification['payload']): Notification['payload'] {
  if (!('attachments' in payload)) return payload;
  const { attachments: _files, ...rest } = payload;
  return rest;
}

/** The message record of one delivery. */
export function buildMessage(
  delivery: Delivery,
  context: { workflow: Workflow; notification: Notification; subscriber: Subscriber; now: string; status: MessageStatus },
): Message {
  const { workflow, notification, subscriber, now, status } = context;
  const { rendered, step, channel } = delivery;
  const message: Message = {
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
    payload: storedPayload(notification.payload),
    overrides: notification.overrides,
    contextKeys: contextKeys(notification.context),
    tags: workflow.tags,
    // Workflows stored before severity existed have none: they are `none`, as Novu defaults it.
    severity: workflow.severity ?? 'none',
    ...((channel === 'in_app' || channel === 'push') && rendered.data !== undefined && { data: rendered.data }),
    ...(rendered.subject !== undefined && { subject: rendered.subject }),
    ...(rendered.title !== undefined && { title: rendered.title }),
    ...(rendered.avatar !== undefined && { avatar: rendered.avatar }),
    ...(channel === 'email' && rendered.email && { html: rendered.email.html, layoutId: rendered.email.layoutId, ...(rendered.email.preheader && { preheader: rendered.email.preheader }) }),
    ...(channel === 'email' && subscriber.email ? { email: subscriber.email } : {}),
    ...(channel === 'sms' && subscriber.phone ? { phone: subscriber.phone } : {}),
  };
  return withExpiry(message, notification, step.ttl);
}
