import { z } from 'zod';
import { notFound } from '../errors.js';
import { applyAction, applyMarkAs } from '../messages/transitions.js';
import { buttonTypeSchema, actionStatusSchema, channelSchema, jsonObjectSchema, markValueSchema, type Message, type Subscriber } from '../schemas/index.js';
import type { FeedPage } from '../storage.js';
import { parseInput } from '../validation.js';
import type { EngineContext } from './context.js';

const messageIdsSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((ids) => (typeof ids === 'string' ? ids.split(',') : ids).map((id) => id.trim()).filter((id) => id !== ''))
  .pipe(z.array(z.string()).min(1, 'must name at least one message').max(1_000));

export const markAsInputSchema = z.object({ messageId: messageIdsSchema, markAs: markValueSchema });
export type MarkAsInput = z.input<typeof markAsInputSchema>;

export const actionInputSchema = z.object({ status: actionStatusSchema, payload: jsonObjectSchema.optional() });
export type ActionInput = z.input<typeof actionInputSchema>;

export const feedQuerySchema = z.object({
  cursor: z.string().optional(),
  limit: z.number().int().min(1).max(100).default(10),
  read: z.boolean().optional(),
  seen: z.boolean().optional(),
  channel: channelSchema.default('in_app'),
});
export type FeedQueryInput = z.input<typeof feedQuerySchema>;

export function messagesApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function subscriberOf(subscriberId: string, repo = storage.subscribers): Promise<Subscriber> {
    const [subscriber] = await repo.getMany(env, [subscriberId]);
    if (!subscriber) throw notFound('Subscriber', subscriberId);
    return subscriber;
  }

  return {
    /**
     * Marks messages read, seen, unread or unseen and returns them updated. Every id must be one of
     * the subscriber's messages, else not_found and nothing changes.
     */
    async markAs(subscriberId: string, input: MarkAsInput): Promise<Message[]> {
      const { messageId, markAs } = parseInput(markAsInputSchema, input, 'mark-as request');
      const ids = [...new Set(messageId)];
      const updated = await storage.transaction(async (tx) => {
        const subscriber = await subscriberOf(subscriberId, tx.subscribers);
        const found = await tx.messages.getMany(env, subscriber._id, ids);
        const missing = ids.find((id) => !found.some((m) => m._id === id));
        if (missing !== undefined) throw notFound('Message', missing);
        const now = ctx.now();
        const next = found.map((m) => applyMarkAs(m, markAs, now));
        await tx.messages.replaceMany(next);
        return next;
      });
      for (const message of updated) ctx.events.emit(`message.${markAs}`, { message });
      return updated;
    },
    /** Records a CTA button action (`primary`/`secondary`) with status and payload; returns the message. */
    async action(subscriberId: string, messageId: string, type: string, input: ActionInput): Promise<Message> {
      const button = parseInput(buttonTypeSchema, type, 'action type');
      const { status, payload } = parseInput(actionInputSchema, input, 'action request');
      const message = await storage.transaction(async (tx) => {
        const subscriber = await subscriberOf(subscriberId, tx.subscribers);
        const [found] = await tx.messages.getMany(env, subscriber._id, [messageId]);
        if (!found) throw notFound('Message', messageId);
        const next = applyAction(found, button, status, payload);
        await tx.messages.replaceMany([next]);
        return next;
      });
      ctx.events.emit('message.action', { message });
      return message;
    },
    /** The subscriber's messages, newest first, one page at a time (in_app unless `channel` says). */
    async feed(subscriberId: string, query: FeedQueryInput = {}): Promise<FeedPage> {
      const parsed = parseInput(feedQuerySchema, query, 'feed query');
      const subscriber = await subscriberOf(subscriberId);
      return storage.messages.feed(env, subscriber._id, {
        limit: parsed.limit,
        channel: parsed.channel,
        ...(parsed.cursor !== undefined && { cursor: parsed.cursor }),
        ...(parsed.read !== undefined && { read: parsed.read }),
        ...(parsed.seen !== undefined && { seen: parsed.seen }),
      });
    },
    /** Total, unread and unseen in_app messages of the subscriber. */
    async counts(subscriberId: string): Promise<{ total: number; unread: number; unseen: number }> {
      const subscriber = await subscriberOf(subscriberId);
      return storage.messages.counts(env, subscriber._id, 'in_app');
    },
    /** Every message a trigger produced, oldest first. */
    byTransaction: (transactionId: string) => storage.messages.listByTransaction(env, transactionId),
  };
}
