import { z } from 'zod';
import { notFound, TidingsError } from '../errors.js';
import { applyAction, applyArchive, applyMarkAs, applySnooze, applyUnsnooze, applyMarkFlags } from '../messages/transitions.js';
import { buttonTypeSchema, actionStatusSchema, channelSchema, jsonObjectSchema, markValueSchema, type MarkValue, type Message, type Subscriber } from '../schemas/index.js';
import { feedCursor, type FeedPage, type StorageRepositories } from '../storage.js';
import { parseInput } from '../validation.js';
import type { EngineContext } from './context.js';
import { newJob } from './jobs.js';

const messageIdsSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((ids) => (typeof ids === 'string' ? ids.split(',') : ids).map((id) => id.trim()).filter((id) => id !== ''))
  .pipe(z.array(z.string()).min(1, 'must name at least one message').max(1_000));

export const markAsInputSchema = z.object({ messageId: messageIdsSchema, markAs: markValueSchema });
export type MarkAsInput = z.input<typeof markAsInputSchema>;

/** The older form (Novu's `markAs` route, `@novu/node`): flags instead of one mark. */
export const markFlagsInputSchema = z.object({
  messageId: messageIdsSchema,
  mark: z
    .object({ seen: z.boolean().optional(), read: z.boolean().optional() })
    .refine((mark) => mark.seen !== undefined || mark.read !== undefined, 'must set seen, read or both'),
});
export type MarkFlagsInput = z.input<typeof markFlagsInputSchema>;

export const actionInputSchema = z.object({ status: actionStatusSchema, payload: jsonObjectSchema.optional() });
export type ActionInput = z.input<typeof actionInputSchema>;

export const feedQuerySchema = z.object({
  cursor: z
    .string()
    .refine((cursor) => feedCursor.decode(cursor) !== null, 'is not a cursor this feed returned (pass nextCursor back as it is)')
    .optional(),
  limit: z.number().int().min(1).max(100).default(10),
  read: z.boolean().optional(),
  seen: z.boolean().optional(),
  channel: channelSchema.default('in_app'),
  archived: z.boolean().default(false),
  tags: z.array(z.string().min(1)).min(1).optional(),
});
export type FeedQueryInput = z.input<typeof feedQuerySchema>;

export const snoozeInputSchema = z.object({ until: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }) });
export type SnoozeInput = z.input<typeof snoozeInputSchema>;

export function messagesApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function subscriberOf(subscriberId: string, repo = storage.subscribers, missing = () => notFound('Subscriber', subscriberId)): Promise<Subscriber> {
    const [subscriber] = await repo.getMany(env, [subscriberId]);
    if (!subscriber) throw missing();
    return subscriber;
  }

  /** The reader of a feed or counts; one who does not exist is a not_found in Novu's words. */
  const readerOf = (subscriberId: string) =>
    subscriberOf(subscriberId, storage.subscribers, () => new TidingsError('not_found', `Subscriber not found for this environment with the id: ${subscriberId}. Make sure to create a subscriber before fetching the feed.`));

  /**
   * Applies `change` to messages of the subscriber in one transaction; every id must be the
   * subscriber's, else not_found and nothing changes. Returns the messages as stored after it.
   */
  async function update(
    subscriberId: string,
    ids: readonly string[],
    change: (message: Message, now: string, tx: StorageRepositories) => Message | Promise<Message>,
  ): Promise<Message[]> {
    return storage.transaction(async (tx) => {
      const subscriber = await subscriberOf(subscriberId, tx.subscribers);
      const found = await tx.messages.getMany(env, subscriber._id, ids);
      const missing = ids.find((id) => !found.some((m) => m._id === id));
      if (missing !== undefined) throw notFound('Message', missing);
      const now = ctx.now();
      const next: Message[] = [];
      for (const message of found) next.push(await change(message, now, tx));
      await tx.messages.replaceMany(next);
      return next;
    });
  }

  const snoozeJobKey = (messageId: string) => `snooze:${messageId}`;

  return {
    /**
     * Marks messages read, seen, unread or unseen and returns them updated. Every id must be one of
     * the subscriber's messages, else not_found and nothing changes.
     */
    async markAs(subscriberId: string, input: MarkAsInput): Promise<Message[]> {
      const { messageId, markAs } = parseInput(markAsInputSchema, input, 'mark-as request');
      const updated = await update(subscriberId, [...new Set(messageId)], (m, now) => applyMarkAs(m, markAs, now));
      for (const message of updated) ctx.events.emit(`message.${markAs}`, { message });
      return updated;
    },
    /**
     * Sets the `seen` and `read` flags of messages in one transaction (`{ messageId, mark: { seen?,
     * read? } }`, the form of Novu's older clients); read still implies seen. Returns them updated.
     */
    async markFlags(subscriberId: string, input: MarkFlagsInput): Promise<Message[]> {
      const { messageId, mark } = parseInput(markFlagsInputSchema, input, 'mark request');
      const updated = await update(subscriberId, [...new Set(messageId)], (m, now) => applyMarkFlags(m, mark, now));
      const marks: MarkValue[] = [];
      if (mark.read !== undefined) marks.push(mark.read ? 'read' : 'unread');
      if (mark.seen !== undefined) marks.push(mark.seen ? 'seen' : 'unseen');
      for (const message of updated) for (const markAs of marks) ctx.events.emit(`message.${markAs}`, { message });
      return updated;
    },
    /** Records a CTA button action (`primary`/`secondary`) with status and payload; returns the message. */
    async action(subscriberId: string, messageId: string, type: string, input: ActionInput): Promise<Message> {
      const button = parseInput(buttonTypeSchema, type, 'action type');
      const { status, payload } = parseInput(actionInputSchema, input, 'action request');
      const [message] = await update(subscriberId, [messageId], (m) => applyAction(m, button, status, payload));
      ctx.events.emit('message.action', { message: message! });
      return message!;
    },
    /**
     * Hides a message from the feed until `until`; then it comes back unseen and unread with a new
     * `deliveredAt` entry. Snoozing again moves the time.
     */
    async snooze(subscriberId: string, messageId: string, input: SnoozeInput): Promise<Message> {
      const until = new Date(parseInput(snoozeInputSchema, input, 'snooze request').until);
      if (until.getTime() <= ctx.clock.now().getTime()) {
        throw new TidingsError('validation_failed', 'A snooze must end in the future', { issues: [{ path: 'until', message: 'must be in the future' }] });
      }
      const [message] = await update(subscriberId, [messageId], async (m, _now, tx) => {
        await tx.jobs.cancelByTransaction(env, snoozeJobKey(m._id));
        await tx.jobs.enqueue([
          newJob(
            { env, kind: 'unsnooze', runAt: until.toISOString(), transactionId: snoozeJobKey(m._id), subscriberId, data: { notificationId: m._notificationId, stepIndex: 0, messageId: m._id } },
            ctx.clock.now(),
          ),
        ]);
        return applySnooze(m, until.toISOString());
      });
      ctx.events.emit('message.snoozed', { message: message! });
      return message!;
    },
    /** Ends a snooze at once: the message is back in the feed, unseen. */
    async unsnooze(subscriberId: string, messageId: string): Promise<Message> {
      const [message] = await update(subscriberId, [messageId], async (m, now, tx) => {
        if (m.snoozedUntil === undefined) throw new TidingsError('validation_failed', 'The message is not snoozed', { issues: [{ path: 'messageId', message: 'is not snoozed' }] });
        await tx.jobs.cancelByTransaction(env, snoozeJobKey(m._id));
        return applyUnsnooze(m, now);
      });
      ctx.events.emit('message.unsnoozed', { message: message! });
      return message!;
    },
    /** Archives messages: out of the default feed and the counts, kept for `feed({ archived: true })`. */
    async archive(subscriberId: string, messageIds: readonly string[] | string): Promise<Message[]> {
      const ids = parseInput(messageIdsSchema, messageIds, 'message ids');
      const updated = await update(subscriberId, [...new Set(ids)], (m) => applyArchive(m, true));
      for (const message of updated) ctx.events.emit('message.archived', { message });
      return updated;
    },
    async unarchive(subscriberId: string, messageIds: readonly string[] | string): Promise<Message[]> {
      const ids = parseInput(messageIdsSchema, messageIds, 'message ids');
      const updated = await update(subscriberId, [...new Set(ids)], (m) => applyArchive(m, false));
      for (const message of updated) ctx.events.emit('message.unarchived', { message });
      return updated;
    },
    /**
     * The subscriber's messages, newest first, one page at a time: in_app unless `channel` says,
     * unarchived unless `archived: true`, snoozed ones hidden; `tags` keeps messages of those tags.
     * A subscriber who does not exist is a not_found (as Novu answers), not an empty page.
     */
    async feed(subscriberId: string, query: FeedQueryInput = {}): Promise<FeedPage> {
      const parsed = parseInput(feedQuerySchema, query, 'feed query');
      const subscriber = await readerOf(subscriberId);
      return storage.messages.feed(env, subscriber._id, {
        limit: parsed.limit,
        channel: parsed.channel,
        archived: parsed.archived,
        now: ctx.now(),
        ...(parsed.cursor !== undefined && { cursor: parsed.cursor }),
        ...(parsed.read !== undefined && { read: parsed.read }),
        ...(parsed.seen !== undefined && { seen: parsed.seen }),
        ...(parsed.tags !== undefined && { tags: parsed.tags }),
      });
    },
    /** Total, unread and unseen in_app messages of the subscriber (archived and snoozed ones left out). */
    async counts(subscriberId: string): Promise<{ total: number; unread: number; unseen: number }> {
      const subscriber = await readerOf(subscriberId);
      return storage.messages.counts(env, subscriber._id, { channel: 'in_app', now: ctx.now() });
    },
    /** Every message a trigger produced, oldest first. */
    byTransaction: (transactionId: string) => storage.messages.listByTransaction(env, transactionId),
  };
}
