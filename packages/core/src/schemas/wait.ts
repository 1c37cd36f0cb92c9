import { z } from 'zod';
import { jsonObjectSchema } from './enums.js';
import { FILTER_ON, filterOperatorSchema, filterTypeSchema } from './filter.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;
const UNIT_NAMES = { seconds: 's', minutes: 'm', hours: 'h', days: 'd', weeks: 'w' } as const;
/** How long the app's signals are kept for waits that look back. */
export const SIGNAL_RETENTION_MS = 7 * 86_400_000;
/** The longest a run may wait: a year. */
export const MAX_WAIT_MS = 366 * 86_400_000;

/**
 * A length of time: `'30s'`, `'15m'`, `'1h'`, `'2d'`, `'1w'`, or `{ amount, unit }` (seconds to
 * weeks), read as milliseconds; at least a second, at most a year.
 */
export const durationSchema = z
  .union([
    /** Milliseconds, as a parsed duration is stored. */
    z.number().int('must be a whole number of milliseconds'),
    z.string().regex(/^\d{1,6}(s|m|h|d|w)$/, "must be a number and a unit, as '30s', '15m', '1h', '2d' or '1w'"),
    z.strictObject({ amount: z.number().int().positive('must be a positive whole number'), unit: z.enum(['seconds', 'minutes', 'hours', 'days', 'weeks']) }),
  ], { error: "must be a duration: '30s', '15m', '1h', '2d', '1w' or { amount, unit }" })
  .transform((d) => (typeof d === 'number' ? d : typeof d === 'string' ? Number(d.slice(0, -1)) * UNIT_MS[d.slice(-1) as keyof typeof UNIT_MS] : d.amount * UNIT_MS[UNIT_NAMES[d.unit]]))
  .pipe(z.number().min(1_000, 'must be at least a second').max(MAX_WAIT_MS, 'must be at most a year'));

/** The roots a wait's match filter reads: the filter language's, and `event` (the signal: `name`, `data`, `subscriberId`). */
export const WAIT_FILTER_ON = [...FILTER_ON, 'event'] as const;

/** A filter over the event and the run (`{ on: 'event', field: 'data.orderId', operator: 'EQUAL', value: '{{ payload.orderId }}' }`). */
export const waitFilterSchema = z.strictObject({
  isNegated: z.boolean().default(false),
  type: filterTypeSchema.default('GROUP'),
  value: z.enum(['AND', 'OR']),
  children: z.array(
    z.strictObject({
      field: z.string().min(1),
      value: z.union([z.string(), z.number(), z.boolean()]).transform(String),
      operator: filterOperatorSchema,
      on: z.enum(WAIT_FILTER_ON),
      rawPattern: z.boolean().optional(),
    }),
  ).max(20, 'must hold at most 20 conditions'),
});
export type WaitFilter = z.infer<typeof waitFilterSchema>;

/**
 * Which events end a wait besides their name: Inngest's string form (`'data.orderId'`: the event's
 * `data.orderId` equals the run payload's `orderId`), or filters over `event` and the run.
 */
export const eventMatchSchema = z.union([
  z.string().regex(/^data(\.[A-Za-z0-9_$-]+)+$/, "must be a path into the event's data, as 'data.orderId'"),
  z.array(waitFilterSchema).max(10, 'must hold at most 10 filters'),
], { error: "must be a path as 'data.orderId' or a list of filters" });
export type EventMatch = z.infer<typeof eventMatchSchema>;

/** An event's name: the app's own, or the engine's `message.*`. */
export const eventNameSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** What `step.waitForEvent` and a JSON `wait` step take. */
export const waitForEventSchema = z.strictObject({
  event: eventNameSchema,
  match: eventMatchSchema.optional(),
  timeout: durationSchema,
  /** `halt` ends the subscriber's run when no event came; `continue` goes on with `{ matched: false }`. @default 'continue' */
  onTimeout: z.enum(['continue', 'halt']).default('continue'),
  /** `halt` ends the subscriber's run when the event came (escalations: email only if the message was not read). @default 'continue' */
  onEvent: z.enum(['continue', 'halt']).default('continue'),
  /** A matching signal sent at most this long before the wait began counts too. */
  lookBack: durationSchema.pipe(z.number().max(SIGNAL_RETENTION_MS, 'must be at most 7 days (how long signals are kept)')).optional(),
});
export type WaitForEvent = z.infer<typeof waitForEventSchema>;
export type WaitForEventInput = z.input<typeof waitForEventSchema>;

/** What `step.waitForToken` and a JSON `wait` step with `token: true` take. */
export const waitForTokenSchema = z.strictObject({
  token: z.literal(true),
  timeout: durationSchema,
  onTimeout: z.enum(['continue', 'halt']).default('continue'),
});
export type WaitForToken = z.infer<typeof waitForTokenSchema>;

/** A JSON `wait` step's `metadata`: an event's or a token's. */
export const waitMetadataSchema = z.union([waitForEventSchema, waitForTokenSchema], { error: 'a wait step needs { event, timeout, match?, onTimeout?, lookBack? } or { token: true, timeout }' });
export type WaitMetadata = z.infer<typeof waitMetadataSchema>;

/** One of a workflow's `cancelOn`: a matching signal cancels that subscriber's pending run. */
export const cancelOnSchema = z.array(z.strictObject({ event: eventNameSchema, match: eventMatchSchema.optional() })).max(10, 'must hold at most 10 events');
export type CancelOn = z.infer<typeof cancelOnSchema>;

/** `tidings.signal(name, input)`'s input. */
export const signalInputSchema = z.strictObject({
  /** The subscriber the event is about: only that subscriber's runs are matched. None: every subscriber's. */
  subscriberId: z.string().trim().min(1, 'must not be empty').optional(),
  data: jsonObjectSchema.default({}),
});
export type SignalInput = z.input<typeof signalInputSchema>;

/** `POST /v1/signals`'s body. */
export const signalBodySchema = signalInputSchema.extend({ name: eventNameSchema });

/** A token's output: what the run resumes with. */
export const tokenOutputSchema = jsonObjectSchema.default({});
