import { parseInput } from '@tidings/core/internal';
import { MAX_ACTIVITY_FILTER_VALUES, MAX_ID_LENGTH, activityInstantSchema, activityStatusSchema, channelSchema } from '@tidings/core/schemas';
import type { HonoRequest } from 'hono';
import { z } from 'zod';
import { wholeNumber } from '../params.js';

/** Most values one list parameter may hold (`subscriberIds`, `transactionId`, `templates`): the engine's. */
export const MAX_LIST_VALUES = MAX_ACTIVITY_FILTER_VALUES;

const id = z.string().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);
const idList = z.array(id).max(MAX_LIST_VALUES, `must hold at most ${MAX_LIST_VALUES} values`);

const instant = activityInstantSchema;

/** A parameter of Novu's that this server cannot honour: refused rather than ignored, so no filter goes silently unused. */
const unsupported = (why: string) => z.unknown().refine(() => false, why).optional();

/**
 * The query of `GET /v1/notifications`: Novu's ActivitiesRequestDto (page, limit, channels, templates,
 * subscriberIds, transactionId, after, before), and `status` (of the steps). Without transactions
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
    /** What became of a step: its message's status (`sent`, `error`, `warning`: not sent) or `skipped` (no message). */
    status: z.array(activityStatusSchema).optional(),
    /** Notifications created at or after / at or before these instants. */
    after: instant.optional(),
    before: instant.optional(),
    emails: unsupported('is not supported: this server cannot look subscribers up by email; pass subscriberIds'),
    search: unsupported('is not supported: this server cannot search subscribers; pass subscriberIds'),
    topicKey: unsupported('is not supported: a notification does not keep the topics it was sent to'),
    severity: unsupported('is not supported on the activity list'),
    subscriptionId: unsupported('is not supported on the activity list'),
    contextKeys: unsupported('is not supported on the activity list'),
  });
// `after` later than `before` is refused by the engine's query, naming `after`.
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
