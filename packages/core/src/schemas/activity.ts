import { z } from 'zod';
import { channelSchema, type Channel } from './enums.js';
import { MAX_ID_LENGTH } from './limits.js';
import type { Message } from './message.js';
import type { Notification } from './notification.js';
import type { Subscriber } from './subscriber.js';
import type { Workflow } from './workflow.js';

/** Most values one filter of the activity list holds (`transactionIds`, `subscriberIds`, `workflows`). */
export const MAX_ACTIVITY_FILTER_VALUES = 100;

const id = z.string().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);
const ids = z.array(id).max(MAX_ACTIVITY_FILTER_VALUES, `must hold at most ${MAX_ACTIVITY_FILTER_VALUES} values`);

/** An ISO 8601 date or date-time (`2026-06-01`, `2026-06-01T12:00:00Z`), read as the instant it names. */
export const activityInstantSchema = z
  .string()
  .refine((v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date or date-time')
  .transform((v) => new Date(v).toISOString());

/**
 * What became of a channel step, as the activity list filters on it: its message's status (`sent`,
 * `error`: failed for good, `warning`: not sent, nowhere to go) or `skipped` (a preference, a
 * subscription, a filter, a closed schedule or a cap left it out, and no message was made).
 */
export const activityStatusSchema = z.enum(['sent', 'error', 'warning', 'skipped']);
export type ActivityStatus = z.infer<typeof activityStatusSchema>;

/**
 * A page of the activity list (`tidings.activity.list`): one item per notification and subscriber,
 * newest first. With `transactionIds`, those triggers; else with `subscriberIds`, those subscribers'
 * notifications; else the whole environment's. The other members filter: `workflows` by `_id`,
 * trigger identifier or slug; `channels` and `statuses` keep items with a step of one of those
 * channels and outcomes (both given: one step that matches both); `after`/`before` bound the
 * notification's `createdAt`, both included.
 */
export const activityListQuerySchema = z
  .strictObject({
    /** From 0. @default 0 */
    page: z.number().int().min(0).max(100_000).default(0),
    /** @default 10 */
    limit: z.number().int().min(1).max(50).default(10),
    transactionIds: ids.optional(),
    subscriberIds: ids.optional(),
    workflows: ids.optional(),
    channels: z.array(channelSchema).optional(),
    statuses: z.array(activityStatusSchema).optional(),
    after: activityInstantSchema.optional(),
    before: activityInstantSchema.optional(),
  })
  .superRefine((q, ctx) => {
    if (q.after !== undefined && q.before !== undefined && q.after > q.before) ctx.addIssue({ code: 'custom', path: ['after'], message: 'must not be later than before' });
  });
export type ActivityListQuery = z.input<typeof activityListQuerySchema>;

/** A channel step that made no message because it was skipped; `reason` as `explain` gives it. */
export interface SkippedStep {
  readonly stepIndex: number;
  readonly channel: Channel;
  readonly reason: string;
  /** When the walk decided it. */
  readonly at: string;
}

/** One notification as one subscriber had it. */
export interface ActivityItem {
  readonly notification: Notification;
  readonly subscriberId: string;
  /** Null when the subscriber has been deleted since. */
  readonly subscriber: Subscriber | null;
  /** Null when the workflow has been deleted since. */
  readonly workflow: Workflow | null;
  /** Every message it made for the subscriber, oldest first (not sent and failed ones too). */
  readonly messages: readonly Message[];
  /** Its channel steps skipped for the subscriber, in step order. */
  readonly skipped: readonly SkippedStep[];
}

export interface ActivityList {
  readonly items: readonly ActivityItem[];
  readonly page: number;
  readonly limit: number;
  /**
   * More items follow. Also true on the last page read when a scan stopped at its cap (see
   * `tidings.activity.list`): older notifications may then be left out.
   */
  readonly hasMore: boolean;
}
