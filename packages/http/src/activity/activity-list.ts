import type { Message, Tidings } from '@tidings/core';
import { stepIndexOf } from '@tidings/core/internal';
import type { ActivityItem } from '@tidings/core/schemas';
import type { ActivityQuery } from './activity-query.js';

/** Characters of a message's content shown in the list. */
const SUMMARY_LENGTH = 160;

export interface ActivityPage {
  readonly data: Record<string, unknown>[];
  readonly page: number;
  readonly pageSize: number;
  readonly hasMore: boolean;
}

/**
 * Novu's activity list (`GET /v1/notifications`): the engine's `activity.list` with Novu's parameter
 * names, each item in Novu's shape.
 */
export async function listActivity(tidings: Tidings, query: ActivityQuery): Promise<ActivityPage> {
  const subscriberIds = [...new Set([...(query.subscriberIds ?? []), ...(query.subscriberId !== undefined ? [query.subscriberId] : [])])];
  const listed = await tidings.activity.list({
    page: query.page,
    limit: query.limit,
    ...(query.transactionId !== undefined && { transactionIds: query.transactionId }),
    ...(subscriberIds.length > 0 && { subscriberIds }),
    ...(query.templates !== undefined && { workflows: query.templates }),
    ...(query.channels !== undefined && { channels: query.channels }),
    ...(query.status !== undefined && { statuses: query.status }),
    ...(query.after !== undefined && { after: query.after }),
    ...(query.before !== undefined && { before: query.before }),
  });
  return { data: listed.items.map(activityToWire), page: listed.page, pageSize: listed.limit, hasMore: listed.hasMore };
}

/** A message's content in one line of at most SUMMARY_LENGTH characters. */
export function contentSummary(message: Pick<Message, 'content'>): string {
  const text = (typeof message.content === 'string' ? message.content : message.content.map((block) => block.content).join(' ')).replace(/\s+/g, ' ').trim();
  return text.length > SUMMARY_LENGTH ? `${text.slice(0, SUMMARY_LENGTH - 1)}…` : text;
}

/**
 * An activity item as Novu's ActivityNotificationResponseDto has it (`_id`, `_subscriberId`,
 * `transactionId`, `channels`, `subscriber`, `template`, `payload`, `createdAt`; the members its SDK
 * requires are always there), with Tidings's `templateIdentifier`, `messages` in place of Novu's
 * `jobs` (one per message, with its step, channel, status, provider ids and a summary of its
 * content) and `skipped` (the channel steps that made no message, with why).
 */
function activityToWire({ notification: n, subscriberId, subscriber, workflow, messages, skipped }: ActivityItem): Record<string, unknown> {
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
    channels: [...new Set([...messages.map((m) => m.channel), ...skipped.map((s) => s.channel)])],
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
    skipped: skipped.map((s) => ({ stepIndex: s.stepIndex, channel: s.channel, reason: s.reason, at: s.at })),
  };
}
