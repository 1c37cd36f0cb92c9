import { TidingsError, type MessageFilterInput } from '@tidings/core';
import { parseInput } from '@tidings/core/internal';
import { messageFilterSchema } from '@tidings/core/schemas';
import { z } from 'zod';

const invalid = (path: string, message: string) => new TidingsError('validation_failed', `${path} ${message}`, { issues: [{ path, message }] });

/**
 * The filter as it came, once core's schema accepts it (caps on tags, severity and data included):
 * else a validation_failed naming the member (`tags`, `filters[1].tags`) before any query runs.
 */
function checked(filter: MessageFilterInput, what: string): MessageFilterInput {
  parseInput(messageFilterSchema, filter, what);
  return filter;
}

/** The count route's filters under `filters`, so an issue names its filter (`filters[0].tags`). */
const countFiltersSchema = z.strictObject({ filters: z.array(messageFilterSchema) });

function flag(value: string | undefined, path: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw invalid(path, 'must be true or false');
}

function json(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid(path, 'must be JSON');
  }
}

function instant(value: string | undefined, path: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isFinite(ms)) throw invalid(path, 'must be milliseconds since the epoch');
  return ms;
}

/**
 * The filter of `GET /v1/inbox/notifications` from its query, in the forms Novu's client sends:
 * `tags[]=a&tags[]=b` (one OR group) or `tags[0][]=a&tags[1][]=b` (AND of OR groups), `severity` or
 * `severity[]`, `data` as a JSON string, `createdGte` / `createdLte` in milliseconds.
 */
export function listFilter(queries: Record<string, string[]>): MessageFilterInput {
  return checked(queryFilter(queries), 'query');
}

function queryFilter(queries: Record<string, string[]>): MessageFilterInput {
  const one = (key: string) => queries[key]?.[0];
  const groups = Object.keys(queries)
    .map((key) => /^tags\[(\d+)\]\[\]$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => queries[m[0]]!);
  const flat = [...(queries['tags[]'] ?? []), ...(queries['tags'] ?? [])];
  const severity = [...(queries['severity[]'] ?? []), ...(queries['severity'] ?? [])];
  const filter: Record<string, unknown> = {
    read: flag(one('read'), 'read'),
    seen: flag(one('seen'), 'seen'),
    archived: flag(one('archived'), 'archived'),
    snoozed: flag(one('snoozed'), 'snoozed'),
    ...(groups.length > 0 ? { tags: groups } : flat.length > 0 ? { tags: flat } : {}),
    ...(severity.length > 0 && { severity }),
    ...(one('data') !== undefined && { data: json(one('data')!, 'data') }),
    createdGte: instant(one('createdGte'), 'createdGte'),
    createdLte: instant(one('createdLte'), 'createdLte'),
  };
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)) as MessageFilterInput;
}

/**
 * A filter given as a JSON object (one of the count route's, or the body of a bulk route) as the
 * library takes it: `data` may come JSON-stringified, `tags` as one string. `at` names where it was.
 */
function objectFilter(raw: unknown, at: string): MessageFilterInput {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(at || 'body', 'must be an object');
  const { tags, data, ...rest } = raw as Record<string, unknown>;
  return {
    ...rest,
    ...(tags !== undefined && { tags: typeof tags === 'string' ? [tags] : tags }),
    ...(data !== undefined && { data: typeof data === 'string' ? json(data, at ? `${at}.data` : 'data') : data }),
  } as MessageFilterInput;
}

/** The count route's `filters` list, each filter checked and named by its place in it. */
export function countFilters(raw: readonly unknown[]): MessageFilterInput[] {
  const filters = raw.map((filter, i) => objectFilter(filter, `filters[${i}]`));
  parseInput(countFiltersSchema, { filters }, 'filters');
  return filters;
}

/** The `{ tags?, data? }` body of the bulk routes (`data` JSON-stringified inside the JSON body). */
export const bodyFilter = (body: unknown): MessageFilterInput => checked(body === undefined || body === null ? {} : objectFilter(body, ''), 'body');

export { json as parseJsonParameter };
