import { parseInput } from '@tidings/core/internal';
import { MAX_ID_LENGTH, channelSchema, messageStatusSchema } from '@tidings/core/schemas';
import type { HonoRequest } from 'hono';
import { z } from 'zod';
import { wholeNumber } from '../params.js';

/** Most values one list parameter may hold (`subscriberIds`, `transactionId`, `templates`). */
export const MAX_LIST_VALUES = 100;

const id = z.string().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);
const idList = z.array(id).max(MAX_LIST_VALUES, `must hold at most ${MAX_LIST_VALUES} values`);

/** An ISO 8601 date or date-time (`2026-06-01`, `2026-06-01T12:00:00Z`), read as the instant it names. */
const instant = z
  .string()
  .refine((v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date or date-time')
  .transform((v) => new Date(v).toISOString());

/** A parameter of Novu's that this server cannot honour: refused rather than ignored, so no filter goes silently unused. */
const unsupported = (why: string) => z.unknown().refine(() => false, why).optional();

/**
 * The query of `GET /v1/notifications`: Novu's ActivitiesRequestDto (page, limit, channels, templates,
 * subscriberIds, transactionId, after, before), and `status` (of the messages). Without transactions
 * or subscribers it lists the whole environment's notifications. List parameters come
 * repeated (`?channels=email&channels=sms`, as Novu's SDK sends them), with brackets (`channels[]=`,
 * as axios does) or, for channels and status, comma-separated.
 */
export const activityQuerySchema = z
  .object({
    page: wholeNumber(0, 100_000).default(0),
    limit: wholeNumber(1, 50).default(10),
    transactionId: idList.optional(),
    subscriberIds: idList.optional(),
    /** One subscriber, as `GET /v1/jobs` and the explain route name it; joins `subscriberIds`. */
    subscriberId: id.optional(),
    /** Workflows by `_id`, trigger identifier or slug. */
    templates: idList.optional(),
    channels: z.array(channelSchema).optional(),
    status: z.array(messageStatusSchema).optional(),
    /** Notifications created at or after / at or before these instants. */
    after: instant.optional(),
    before: instant.optional(),
    emails: unsupported('is not supported: this server cannot look subscribers up by email; pass subscriberIds'),
    search: unsupported('is not supported: this server cannot search subscribers; pass subscriberIds'),
    topicKey: unsupported('is not supported: a notification does not keep the topics it was sent to'),
    severity: unsupported('is not supported on the activity list'),
    subscriptionId: unsupported('is not supported on the activity list'),
    contextKeys: unsupported('is not supported on the activity list'),
  })
  .superRefine((q, ctx) => {
    if (q.after !== undefined && q.before !== undefined && q.after > q.before) ctx.addIssue({ code: 'custom', path: ['after'], message: 'must not be later than before' });
  });
export type ActivityQuery = z.output<typeof activityQuerySchema>;

/** `GET /v1/jobs` and `?subscriberId=` of the explain route. */
export const jobsQuerySchema = z.object({ subscriberId: id.optional(), transactionId: id.optional() });
export const explainQuerySchema = z.object({ subscriberId: id.optional() });

/** The parameters of the activity list that hold lists. */
export const ACTIVITY_LIST_KEYS: readonly string[] = ['transactionId', 'subscriberIds', 'templates', 'channels', 'status', 'emails', 'severity', 'contextKeys'];
/** Lists whose values cannot hold a comma, so `channels=email,sms` is read as two. */
const COMMA_KEYS = new Set<string>(['channels', 'status']);

/**
 * The query string as the schema reads it: every value of a list parameter (repeated, or `key[]`),
 * one string for any other parameter (an array when it was given twice, which the schema refuses).
 */
export function rawQuery(req: HonoRequest, schema: z.ZodObject, listKeys: readonly string[] = []): Record<string, unknown> {
  const all = req.queries();
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    const isList = listKeys.includes(key);
    const values = [...(all[key] ?? []), ...(isList ? (all[`${key}[]`] ?? []) : [])];
    if (values.length === 0) continue;
    if (isList) out[key] = COMMA_KEYS.has(key) ? values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '') : values;
    else out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/** Parses the query with one schema; a bad parameter is a 422 naming it. */
export function parseQuery<S extends z.ZodObject>(req: HonoRequest, schema: S, listKeys: readonly string[] = []): z.output<S> {
  return parseInput(schema, rawQuery(req, schema, listKeys), 'query');
}
