import { z } from 'zod';
import { contextKeys, contextKeyText } from '../../contexts/context-keys.js';
import { contextPayloadSchema } from '../../schemas/context.js';
import { notFound, TidingsError } from '../../errors.js';
import { applyAction, applyArchive, applyMarkAs, applySnooze, applyUnsnooze, applyMarkFlags } from '../../messages/transitions.js';
import { isExpired } from '../../messages/expiry.js';
import { buttonTypeSchema, actionStatusSchema, channelSchema, filterDataSchema, filterSeveritySchema, filterTagsSchema, jsonObjectSchema, markValueSchema, type Channel, type MarkValue, type Message, type Subscriber } from '../../schemas/index.js';
import { groupBy } from '../../util/group-by.js';
import { type FeedPage, type MessageFilter, type StorageRepositories } from '../../storage.js';
import { cursorAfter, decodePosition } from '../../util/page-cursor.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { loopYielder } from '../runtime/loop-yield.js';
import { newJob } from '../runtime/jobs.js';
import { queueWebhookEvents, type WebhookEvent } from '../webhooks/webhook-outbox.js';
import type { WebhookEventType } from '../../schemas/webhook.js';

/** Whether a change made the event happen: a message read or seen for the first time, an action that changed. */
const happened = (type: WebhookEventType, before: Message | undefined, after: Message) =>
  type === 'message.read' ? !before?.read && after.read : type === 'message.seen' ? !before?.seen && after.seen : JSON.stringify(before?.cta.action) !== JSON.stringify(after.cta.action);

/**
 * The webhook events of a change, one per message and type, only where it happened: a retried
 * request that changes nothing again sends nothing again.
 */
function changeEvents(before: readonly Message[], after: readonly Message[], types: readonly WebhookEventType[]): WebhookEvent[] {
  if (types.length === 0) return [];
  // By id: a bulk change (mark all read) may touch tens of thousands of messages.
  const was = new Map(before.map((m) => [m._id, m]));
  return types.flatMap((type) => after.filter((m) => happened(type, was.get(m._id), m)).map((message) => ({ type, data: { message: message as unknown as WebhookEvent['data'] } })));
}

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

/** An instant as an ISO 8601 string or milliseconds since the epoch (Novu's Inbox sends numbers). */
const instantSchema = z.union([z.iso.datetime({ offset: true }), z.number().int()]).transform((at) => new Date(at).toISOString());

/**
 * Which in-app messages a query reads, as Novu's Inbox filters them. `tags` is one OR group
 * (`['a', 'b']`: either) or an AND of OR groups (`[['a', 'b'], ['c']]`); `severity` one or a list;
 * `data` members of the message's `data`, each equal. Each list has a cap (MAX_FILTER_TAGS and the
 * others in limits.ts): past it the filter is refused before any query runs.
 */
export const messageFilterSchema = z.strictObject({
  channel: channelSchema.default('in_app'),
  read: z.boolean().optional(),
  seen: z.boolean().optional(),
  archived: z.boolean().optional(),
  snoozed: z.boolean().optional(),
  tags: filterTagsSchema.optional(),
  severity: filterSeveritySchema.optional(),
  data: filterDataSchema.optional(),
  createdGte: instantSchema.optional(),
  createdLte: instantSchema.optional(),
  /** Only messages triggered with exactly these contexts; `{}` or null: only those triggered with none (Novu's Inbox scoping). */
  context: contextPayloadSchema.nullable().optional(),
});
export type MessageFilterInput = z.input<typeof messageFilterSchema>;

/** A page of the feed: unarchived and unsnoozed messages unless the query says otherwise. */
export const feedQuerySchema = messageFilterSchema.extend({
  cursor: z
    .string()
    .refine((cursor) => decodePosition(cursor) !== null, 'is not a cursor this feed returned (pass nextCursor back as it is)')
    .optional(),
  /** The id of the last message held: the page starts after it (Novu's `after`). */
  after: z.string().min(1).optional(),
  offset: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(100).default(10),
  archived: z.boolean().default(false),
  snoozed: z.boolean().default(false),
});
export type FeedQueryInput = z.input<typeof feedQuerySchema>;

type ParsedFilter = z.output<typeof messageFilterSchema>;

/** The storage's filter for a parsed one, at `now`. */
function storageFilter(filter: ParsedFilter, now: string): MessageFilter {
  const { tags, severity, context, ...rest } = filter;
  return {
    ...rest,
    now,
    ...(context !== undefined && { context: contextKeyText(contextKeys(context)) }),
    ...(tags !== undefined && { tags: tags.length > 0 && Array.isArray(tags[0]) ? (tags as string[][]) : [tags as string[]] }),
    ...(severity !== undefined && { severity: Array.isArray(severity) ? severity : [severity] }),
  };
}

export const snoozeInputSchema = z.object({ until: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }) });
export type SnoozeInput = z.input<typeof snoozeInputSchema>;

export function messagesApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function subscriberOf(subscriberId: string, repo = storage.subscribers, missing = () => notFound('Subscriber', subscriberId)): Promise<Subscriber> {
    const [subscriber] = await repo.getMany(env, [subscriberId]);
    if (!subscriber) throw missing();
    return subscriber;
  }

  /** The reader of a feed or counts; null for one who was never notified (nothing to read). */
  const readerOf = async (subscriberId: string): Promise<Subscriber | null> => (await storage.subscribers.getMany(env, [subscriberId]))[0] ?? null;

  /**
   * Applies `change` to messages of the subscriber in one transaction; every id must be the
   * subscriber's (and not expired), else not_found and nothing changes. Returns the messages as stored after it.
   */
  async function update(
    subscriberId: string,
    ids: readonly string[],
    change: (message: Message, now: string, tx: StorageRepositories) => Message | Promise<Message>,
    webhookTypes: readonly WebhookEventType[] = [],
  ): Promise<Message[]> {
    return storage.transaction(async (tx) => {
      const subscriber = await subscriberOf(subscriberId, tx.subscribers);
      const now = ctx.now();
      const found = (await tx.messages.getMany(env, subscriber._id, ids)).filter((m) => !isExpired(m, now));
      const missing = ids.find((id) => !found.some((m) => m._id === id));
      if (missing !== undefined) throw notFound('Message', missing);
      const next: Message[] = [];
      for (const message of found) next.push(await change(message, now, tx));
      await tx.messages.replaceMany(env, next);
      await queueWebhookEvents(ctx, tx, changeEvents(found, next, webhookTypes));
      return next;
    });
  }

  /**
   * Applies `change` to every message of the subscriber matching `filter` and `only`, in one
   * transaction, and emits `event` for each; returns them as stored after it.
   */
  /** Messages one page of a bulk change reads and writes. */
  const CHANGE_PAGE = 1_000;

  async function changeMatching(
    subscriberId: string,
    filter: MessageFilterInput,
    only: Partial<MessageFilter>,
    change: (message: Message, now: string) => Message,
    event: 'message.read' | 'message.archived' | 'message.seen' | 'message.unread' | 'message.unseen',
  ): Promise<Message[]> {
    const parsed = parseInput(messageFilterSchema, filter, 'filter');
    const updated = await storage.transaction(async (tx) => {
      const subscriber = await subscriberOf(subscriberId, tx.subscribers);
      const now = ctx.now();
      const ids = await tx.messages.idsMatching(env, subscriber._id, { ...storageFilter(parsed, now), ...only });
      if (ids.length === 0) return [];
      // In pages, letting other work of the process run between them: one change of 20,000 messages
      // never holds the event loop for its whole length (it stays one transaction).
      const breathe = loopYielder();
      const before: Message[] = [];
      const next: Message[] = [];
      for (let i = 0; i < ids.length; i += CHANGE_PAGE) {
        await breathe();
        const page = await tx.messages.getMany(env, subscriber._id, ids.slice(i, i + CHANGE_PAGE));
        const changed = page.map((m) => change(m, now));
        await tx.messages.replaceMany(env, changed);
        for (const m of page) before.push(m);
        for (const m of changed) next.push(m);
      }
      await queueWebhookEvents(ctx, tx, changeEvents(before, next, event === 'message.read' || event === 'message.seen' ? [event] : []));
      return next;
    });
    for (const message of updated) ctx.events.emit(event, { message });
    return updated;
  }

  /** Deletes the messages `ids` names, in one transaction; with `strict`, one that is not the subscriber's is not_found. */
  async function deleteIds(subscriberId: string, ids: (subscriber: Subscriber, tx: StorageRepositories) => Promise<readonly string[]>, strict: boolean): Promise<number> {
    const deleted = await storage.transaction(async (tx) => {
      const subscriber = await subscriberOf(subscriberId, tx.subscribers);
      const wanted = await ids(subscriber, tx);
      const found = await tx.messages.getMany(env, subscriber._id, wanted);
      if (strict && found.length < new Set(wanted).size) throw notFound('Message', wanted.find((id) => !found.some((m) => m._id === id))!);
      await tx.messages.deleteMany(env, subscriber._id, found.map((m) => m._id));
      return found;
    });
    for (const message of deleted) ctx.events.emit('message.deleted', { message });
    return deleted.length;
  }

  const snoozeJobKey = (messageId: string) => `snooze:${messageId}`;

  return {
    /**
     * Marks messages read, seen, unread or unseen and returns them updated. Every id must be one of
     * the subscriber's messages, else not_found and nothing changes.
     */
    async markAs(subscriberId: string, input: MarkAsInput): Promise<Message[]> {
      const { messageId, markAs } = parseInput(markAsInputSchema, input, 'mark-as request');
      const updated = await update(subscriberId, [...new Set(messageId)], (m, now) => applyMarkAs(m, markAs, now), markAs === 'read' || markAs === 'seen' ? [`message.${markAs}`] : []);
      for (const message of updated) ctx.events.emit(`message.${markAs}`, { message });
      return updated;
    },
    /**
     * Sets the `seen` and `read` flags of messages in one transaction (`{ messageId, mark: { seen?,
     * read? } }`, the form of Novu's older clients); read still implies seen. Returns them updated.
     */
    async markFlags(subscriberId: string, input: MarkFlagsInput): Promise<Message[]> {
      const { messageId, mark } = parseInput(markFlagsInputSchema, input, 'mark request');
      const updated = await update(subscriberId, [...new Set(messageId)], (m, now) => applyMarkFlags(m, mark, now), [...(mark.read ? (['message.read'] as const) : []), ...(mark.seen ? (['message.seen'] as const) : [])]);
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
      const [message] = await update(subscriberId, [messageId], (m) => applyAction(m, button, status, payload), ['message.action']);
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
        await tx.jobs.enqueue(env, [
          newJob(
            { env, kind: 'unsnooze', runAt: until.toISOString(), transactionId: snoozeJobKey(m._id), subscriberId, data: { messageId: m._id } },
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
      const updated = await update(subscriberId, [...new Set(ids)], (m, now) => applyArchive(m, true, now));
      for (const message of updated) ctx.events.emit('message.archived', { message });
      return updated;
    },
    async unarchive(subscriberId: string, messageIds: readonly string[] | string): Promise<Message[]> {
      const ids = parseInput(messageIdsSchema, messageIds, 'message ids');
      const updated = await update(subscriberId, [...new Set(ids)], (m, now) => applyArchive(m, false, now));
      for (const message of updated) ctx.events.emit('message.unarchived', { message });
      return updated;
    },
    /**
     * The subscriber's messages, newest first, one page at a time: in_app unless `channel` says,
     * unarchived unless `archived: true`, snoozed ones hidden; `tags` keeps messages of those tags.
     * A subscriber who was never notified has an empty feed (the wire answers Novu's 400 itself).
     */
    async feed(subscriberId: string, query: FeedQueryInput = {}): Promise<FeedPage> {
      const { cursor, after, offset, limit, ...filter } = parseInput(feedQuerySchema, query, 'feed query');
      const subscriber = await readerOf(subscriberId);
      if (!subscriber) return { items: [], nextCursor: null };
      let position = cursor;
      if (after !== undefined) {
        const [last] = await storage.messages.getMany(env, subscriber._id, [after]);
        if (!last) throw notFound('Message', after);
        position = cursorAfter({ at: last.createdAt, id: last._id });
      }
      return storage.messages.feed(env, subscriber._id, {
        ...storageFilter(filter, ctx.now()),
        limit,
        ...(position !== undefined && { cursor: position }),
        ...(offset !== undefined && { offset }),
      });
    },
    /**
     * How many of the subscriber's messages match each filter, one indexed query per filter; each
     * answer carries the filter exactly as it was given (Novu's Inbox keys its badges by it).
     */
    async count<F extends MessageFilterInput>(subscriberId: string, filters: readonly F[]): Promise<{ count: number; filter: F }[]> {
      const parsed = parseInput(z.array(messageFilterSchema).max(30, 'at most 30 filters at once'), filters, 'count filters');
      const subscriber = await readerOf(subscriberId);
      if (!subscriber) return filters.map((filter) => ({ count: 0, filter }));
      const now = ctx.now();
      const counts = await storage.messages.countMatching(env, subscriber._id, parsed.map((f) => storageFilter(f, now)));
      return counts.map((count, i) => ({ count, filter: filters[i]! }));
    },
    /** Marks every unread message matching the filter read (and so seen, and out of the archive). */
    readAll: (subscriberId: string, filter: MessageFilterInput = {}) => changeMatching(subscriberId, filter, { read: false }, (m, now) => applyMarkAs(m, 'read', now), 'message.read'),
    /** Archives every unarchived message matching the filter (archiving reads it). */
    archiveAll: (subscriberId: string, filter: MessageFilterInput = {}) => changeMatching(subscriberId, filter, { archived: false }, (m, now) => applyArchive(m, true, now), 'message.archived'),
    /** Archives every read, unarchived message matching the filter. */
    archiveRead: (subscriberId: string, filter: MessageFilterInput = {}) => changeMatching(subscriberId, filter, { archived: false, read: true }, (m, now) => applyArchive(m, true, now), 'message.archived'),
    /**
     * Marks every message matching the filter read, seen, unread or unseen (those not so already);
     * returns them updated. Unread leaves them seen; read makes them seen too.
     */
    markAll(subscriberId: string, markAs: MarkAsInput['markAs'], filter: MessageFilterInput = {}): Promise<Message[]> {
      const mark = parseInput(markAsInputSchema.shape.markAs, markAs, 'markAs');
      const only = { read: { read: false }, seen: { seen: false }, unread: { read: true }, unseen: { seen: true } }[mark];
      return changeMatching(subscriberId, filter, only, (m, now) => applyMarkAs(m, mark, now), `message.${mark}`);
    },
    /** Marks messages seen: those named, or every unseen one matching the filter. */
    async markSeen(subscriberId: string, which: { messageIds?: readonly string[]; filter?: MessageFilterInput }): Promise<Message[]> {
      if (which.messageIds !== undefined) {
        const ids = parseInput(messageIdsSchema, which.messageIds, 'message ids');
        const updated = await update(subscriberId, [...new Set(ids)], (m, now) => applyMarkAs(m, 'seen', now), ['message.seen']);
        for (const message of updated) ctx.events.emit('message.seen', { message });
        return updated;
      }
      return changeMatching(subscriberId, which.filter ?? {}, { seen: false }, (m, now) => applyMarkAs(m, 'seen', now), 'message.seen');
    },
    /** Deletes one message of the subscriber; not_found when it is not theirs. */
    async delete(subscriberId: string, messageId: string): Promise<void> {
      await deleteIds(subscriberId, async () => [messageId], true);
    },
    /**
     * Deletes every message of a trigger (of one channel, when given), whoever received it, in one
     * transaction; returns how many. What the trigger has not sent yet is `cancel`'s.
     */
    async deleteByTransaction(transactionId: string, channel?: Channel): Promise<number> {
      const checked = channel === undefined ? undefined : parseInput(channelSchema, channel, 'channel');
      const deleted = await storage.transaction(async (tx) => {
        const found = (await tx.messages.listByTransaction(env, transactionId)).filter((m) => checked === undefined || m.channel === checked);
        for (const [subscriberInternalId, messages] of groupBy(found, (m) => m._subscriberId)) await tx.messages.deleteMany(env, subscriberInternalId, messages.map((m) => m._id));
        return found;
      });
      for (const message of deleted) ctx.events.emit('message.deleted', { message });
      return deleted.length;
    },
    /** Deletes every message matching the filter; returns how many. */
    deleteAll: async (subscriberId: string, filter: MessageFilterInput = {}): Promise<number> => {
      const parsed = parseInput(messageFilterSchema, filter, 'filter');
      return deleteIds(subscriberId, (subscriber, tx) => tx.messages.idsMatching(env, subscriber._id, storageFilter(parsed, ctx.now())), false);
    },
    /** Total, unread and unseen in_app messages of the subscriber (archived and snoozed ones left out). */
    async counts(subscriberId: string): Promise<{ total: number; unread: number; unseen: number }> {
      const subscriber = await readerOf(subscriberId);
      if (!subscriber) return { total: 0, unread: 0, unseen: 0 };
      return storage.messages.counts(env, subscriber._id, { channel: 'in_app', now: ctx.now() });
    },
    /** One of the subscriber's messages, or null (also when the subscriber does not exist, or the message expired). */
    async get(subscriberId: string, messageId: string): Promise<Message | null> {
      const [subscriber] = await storage.subscribers.getMany(env, [subscriberId]);
      if (!subscriber) return null;
      const [message] = await storage.messages.getMany(env, subscriber._id, [messageId]);
      return message && !isExpired(message, ctx.now()) ? message : null;
    },
    /** Every message a trigger produced, oldest first. */
    byTransaction: (transactionId: string) => storage.messages.listByTransaction(env, transactionId),
  };
}
