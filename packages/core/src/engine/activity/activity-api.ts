import { z } from 'zod';
import { MAX_ID_LENGTH, type ActivityList, type ActivityListQuery, type Job, type Message, type Notification, type Workflow } from '../../schemas/index.js';
import { activityList } from './activity-list.js';
import { type Digest, type FeedPage } from '../../storage.js';
import { decodePosition } from '../../util/page-cursor.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';

/** Most ids one read by ids takes. */
export const MAX_IDS_PER_READ = 10_000;

const readId = z.string().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);
const readIdsSchema = z.array(readId).max(MAX_IDS_PER_READ, `must hold at most ${MAX_IDS_PER_READ} ids`);
const instantSchema = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).transform((at) => new Date(at).toISOString());
const cursorSchema = z.string().refine((cursor) => decodePosition(cursor) !== null, 'is not a cursor this list returned (pass nextCursor back as it is)');

/** A page of the environment's notifications (`activity.notifications`). */
export const notificationPageQuerySchema = z
  .object({
    /** @default 50 */
    limit: z.number().int().min(1).max(1_000).default(50),
    /** The `nextCursor` of the previous page. */
    cursor: cursorSchema.optional(),
    /** Only notifications created at or after / at or before these instants. */
    createdGte: instantSchema.optional(),
    createdLte: instantSchema.optional(),
  })
  .strict();

/** A page of a subscriber's messages (`activity.subscriberMessages`). */
export const subscriberMessagesQuerySchema = z
  .object({
    /** @default 200 */
    limit: z.number().int().min(1).max(1_000).default(200),
    /** The `nextCursor` of the previous page. */
    cursor: cursorSchema.optional(),
    /** Only messages created at or after this instant. */
    createdGte: instantSchema.optional(),
  })
  .strict();

// The signatures below spell their types out (no named types of this module): the package's entry
// does not export this module, and an app's declarations must be able to name what these return.

/**
 * Reads for activity views (what happened to a trigger, to a subscriber, in the environment): the
 * records as stored, for an app that shows them. Nothing here writes. `pending` and `explain` on the
 * engine answer the same questions in a summarised shape.
 */
export function activityApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  const ids = (input: readonly string[], what: string) => [...new Set(parseInput(readIdsSchema, input, what))];
  const listed = activityList(ctx);
  return {
    /**
     * What the activity page lists: one item per notification and subscriber (its messages, its
     * skipped channel steps, the subscriber and workflow records), newest first, `limit` (default 10,
     * at most 50) a page from `page` (from 0). With `transactionIds`, those triggers; else with
     * `subscriberIds`, those subscribers' notifications (found through their messages, pending work
     * and skipped steps, at most 5,000 of each read); else the environment's (at most 1,000 read).
     * Filters: `workflows`, `channels`, `statuses` (`sent`, `error`, `warning`, `skipped`), `after`,
     * `before`. See `activityListQuerySchema`.
     */
    list: (query?: ActivityListQuery): Promise<ActivityList> => listed(query),
    /**
     * The environment's notifications newest first (`createdAt`, then `_id`, descending), created
     * within `createdGte`/`createdLte` when given, a page of `limit` (default 50) at a time: pass
     * `nextCursor` back as `cursor` for the next page (null after the last). The cursor is a position,
     * so pages stay stable while new triggers arrive.
     */
    async notifications(query: { limit?: number; cursor?: string; createdGte?: string; createdLte?: string } = {}): Promise<{ items: Notification[]; nextCursor: string | null }> {
      const { limit, cursor, createdGte, createdLte } = parseInput(notificationPageQuerySchema, query, 'notification page query');
      return storage.notifications.list(env, { limit, ...(cursor !== undefined && { cursor }), ...(createdGte !== undefined && { createdGte }), ...(createdLte !== undefined && { createdLte }) });
    },
    /** The notifications with these `_id`s, in no given order; unknown ids are left out. */
    async notificationsById(notificationIds: readonly string[]): Promise<Notification[]> {
      const wanted = ids(notificationIds, 'notification ids');
      return wanted.length === 0 ? [] : storage.notifications.getMany(env, wanted);
    },
    /** The notification of a trigger, or null when the transaction is unknown. */
    notification: (transactionId: string): Promise<Notification | null> => storage.notifications.getByTransactionId(env, parseInput(readId, transactionId, 'transactionId')),
    /**
     * A trigger as it stands: its notification, every message it made (oldest first), its jobs still
     * to run and the open digests holding its events; null when the transaction is unknown.
     */
    async transaction(transactionId: string): Promise<{ notification: Notification; messages: Message[]; jobs: Job[]; digests: Digest[] } | null> {
      const checked = parseInput(readId, transactionId, 'transactionId');
      const notification = await storage.notifications.getByTransactionId(env, checked);
      if (!notification) return null;
      const [messages, jobs, digests] = await Promise.all([storage.messages.listByTransaction(env, checked), storage.jobs.list(env, { transactionId: checked }), storage.digests.listOpen(env, { transactionId: checked })]);
      return { notification, messages, jobs, digests };
    },
    /**
     * A subscriber's messages newest first, of every channel, read, archived and snoozed ones too
     * (expired ones are gone), a page of `limit` (default 200) at a time from `cursor`; `createdGte`
     * keeps those created at or after it. An unknown subscriber has none.
     */
    async subscriberMessages(subscriberId: string, query: { limit?: number; cursor?: string; createdGte?: string } = {}): Promise<FeedPage> {
      const checked = parseInput(readId, subscriberId, 'subscriberId');
      const { limit, cursor, createdGte } = parseInput(subscriberMessagesQuerySchema, query, 'subscriber messages query');
      const [subscriber] = await storage.subscribers.getMany(env, [checked]);
      if (!subscriber) return { items: [], nextCursor: null };
      return storage.messages.feed(env, subscriber._id, { limit, now: ctx.now(), ...(cursor !== undefined && { cursor }), ...(createdGte !== undefined && { createdGte }) });
    },
    /** A subscriber's jobs still to run and the open digests gathering events for them, as stored. */
    async subscriberPending(subscriberId: string): Promise<{ jobs: Job[]; digests: Digest[] }> {
      const checked = parseInput(readId, subscriberId, 'subscriberId');
      const [jobs, digests] = await Promise.all([storage.jobs.list(env, { subscriberId: checked }), storage.digests.listOpen(env, { subscriberId: checked })]);
      return { jobs, digests };
    },
    /** The workflows with these internal `_id`s, in no given order; unknown ids are left out (`workflows.get` resolves one ref). */
    async workflowsById(workflowIds: readonly string[]): Promise<Workflow[]> {
      const wanted = ids(workflowIds, 'workflow ids');
      return wanted.length === 0 ? [] : storage.workflows.getMany(env, wanted);
    },
  };
}
