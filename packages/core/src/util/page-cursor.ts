import { TidingsError } from '../errors.js';
import { inputHazards } from '../validation.js';

/** A position in a list ordered newest first: the instant and the id of the last item of a page. */
export interface PagePosition {
  readonly at: string;
  readonly id: string;
}

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** The cursor of the page after `position`: opaque text for callers. */
export const cursorAfter = (position: PagePosition): string => Buffer.from(JSON.stringify(position)).toString('base64url');

/**
 * The position a cursor stands for, or null when this code did not make it. Cursors of the form feeds
 * gave before there was one scheme (`createdAt|id`) still read.
 */
export function decodePosition(cursor: string): PagePosition | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  let at: unknown;
  let id: unknown;
  try {
    ({ at, id } = JSON.parse(text) as { at?: unknown; id?: unknown });
  } catch {
    const [first, second, ...rest] = text.split('|');
    if (rest.length === 0) [at, id] = [first, second];
  }
  return typeof at === 'string' && ISO_INSTANT.test(at) && typeof id === 'string' && id.length > 0 && id.length <= 320 && inputHazards(id).length === 0 ? { at, id } : null;
}

/** The position a cursor stands for; a cursor this code did not make is refused, naming `cursor`. */
export function positionOf(cursor: string, what: string): PagePosition {
  const position = decodePosition(cursor);
  if (position) return position;
  throw new TidingsError('validation_failed', `Invalid ${what} query`, { issues: [{ path: 'cursor', message: 'is not a cursor this list gave' }] });
}

/** A page of `limit` from rows read with one more: the data and the cursor of the next page (null after the last). */
export function pageOf<T>(rows: readonly T[], limit: number, position: (item: T) => PagePosition): { data: T[]; nextCursor: string | null } {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > limit && last !== undefined ? cursorAfter(position(last)) : null };
}

/** Checks a page size: an integer from 1 to 100, else refused naming `limit`. */
export function pageLimit(limit: number | undefined, what: string): number {
  const value = limit ?? 50;
  if (!Number.isInteger(value) || value < 1 || value > 100) throw new TidingsError('validation_failed', `Invalid ${what} query`, { issues: [{ path: 'limit', message: 'must be an integer from 1 to 100' }] });
  return value;
}
