import { TidingsError } from '@tidings/core';

/**
 * Cursor pages over what the storage can only read forward, a page of ids at a time (the
 * environment's subscriberIds, a topic's members), in the backend's order of ids. Novu's list
 * routes page by `_id` in either direction with a count; here pages go forward only, every request
 * reads at most SCAN_BUDGET records, and a count is exact only up to what it may read.
 */

/** Records one request reads at most while looking for matches (a filter that matches few keeps scanning on the next page). */
export const SCAN_BUDGET = 2_000;
/** Ids read at most to count them: Novu's count stops at 50,000 too (`totalCountCapped`). */
export const COUNT_CAP = 50_000;
const ID_PAGE = 500;

/** Reads the ids after `after` (from the first when null), at most `limit`, in the backend's order. */
export type IdPager = (after: string | null, limit: number) => Promise<string[]>;

/** A page position: the last id read. Opaque to callers, as Novu's cursors are. */
export const cursor = {
  encode: (id: string) => Buffer.from(`p:${id}`).toString('base64url'),
  decode(value: string, field: string): string {
    const text = Buffer.from(value, 'base64url').toString();
    if (!text.startsWith('p:') || text.length < 3 || Buffer.from(text).toString('base64url') !== value) {
      throw new TidingsError('validation_failed', `Invalid query: ${field}: is not a cursor this server gave (use next)`, { issues: [{ path: field, message: 'is not a cursor this server gave (use next)' }] });
    }
    return text.slice(2);
  },
};

export interface ScanRequest<T> {
  readonly ids: IdPager;
  /** The records of these ids; missing ones (deleted meanwhile) are left out, in any order. */
  readonly load: (ids: string[]) => Promise<T[]>;
  readonly idOf: (record: T) => string;
  readonly matches: (record: T) => boolean;
  /** The decoded `after` cursor. */
  readonly after: string | null;
  readonly includeCursor: boolean;
  readonly limit: number;
}

/**
 * Up to `limit` matching records after the cursor, and `next`: null when the scan reached the end,
 * else the position to continue from (after the last record returned, or after the last one read
 * when the budget ran out first, so a page may hold fewer than `limit` matches and still have a next).
 */
export async function scanPage<T>(request: ScanRequest<T>): Promise<{ items: T[]; next: string | null }> {
  const { ids, load, idOf, matches, limit } = request;
  const found: T[] = [];
  if (request.includeCursor && request.after !== null) {
    const [record] = await load([request.after]);
    if (record && matches(record)) found.push(record);
  }
  let position = request.after;
  let read = 0;
  while (read < SCAN_BUDGET) {
    const page = await ids(position, Math.min(ID_PAGE, SCAN_BUDGET - read));
    if (page.length === 0) return { items: found, next: null };
    const byId = new Map((await load(page)).map((r) => [idOf(r), r] as const));
    for (const id of page) {
      read++;
      position = id;
      const record = byId.get(id);
      if (record && matches(record)) found.push(record);
      if (found.length > limit) return { items: found.slice(0, limit), next: cursor.encode(idOf(found[limit - 1]!)) };
    }
  }
  return { items: found, next: position === null ? null : cursor.encode(position) };
}

/**
 * How many records match, reading from the first: exact when every id fits in what a count may read
 * (COUNT_CAP ids, or SCAN_BUDGET records when each must be loaded to match), else the matches met
 * so far with `capped` (a lower bound, as Novu's count past 50,000 is).
 */
export async function countMatches<T>(request: Pick<ScanRequest<T>, 'ids' | 'load'> & { matches?: (record: T) => boolean }): Promise<{ totalCount: number; totalCountCapped: boolean }> {
  const budget = request.matches ? SCAN_BUDGET : COUNT_CAP;
  const pageSize = request.matches ? ID_PAGE : 5_000;
  let position: string | null = null;
  let read = 0;
  let total = 0;
  for (;;) {
    const page = await request.ids(position, Math.min(pageSize, budget - read));
    if (page.length === 0) return { totalCount: total, totalCountCapped: false };
    read += page.length;
    position = page.at(-1)!;
    if (request.matches) for (const record of await request.load(page)) total += request.matches(record) ? 1 : 0;
    else total += page.length;
    if (read >= budget) return { totalCount: total, totalCountCapped: (await request.ids(position, 1)).length > 0 };
  }
}
