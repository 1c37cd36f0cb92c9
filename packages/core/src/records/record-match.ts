import type { RecordMatch, RecordQuery, RecordRange, RecordWhere, StoredRecord } from './record-store.js';

/**
 * Byte order of text's UTF-8, as the SQL backends compare (`collate "C"`), which is code point order.
 * UTF-16 code units compare the same way except a surrogate (a code point past U+FFFF) against a
 * unit from U+E000 up, so the first differing units decide, with that one case turned around.
 */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const surrogate = (u: number) => u >= 0xd800 && u <= 0xdfff;
    if (surrogate(x) !== surrogate(y) && Math.min(x, y) >= 0xd800) return surrogate(x) ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export const isRange = (match: RecordMatch): match is RecordRange => match !== null && typeof match === 'object' && !Array.isArray(match);

function within(value: string, range: RecordRange): boolean {
  return (
    (range.gt === undefined || byteOrder(value, range.gt) > 0) &&
    (range.gte === undefined || byteOrder(value, range.gte) >= 0) &&
    (range.lt === undefined || byteOrder(value, range.lt) < 0) &&
    (range.lte === undefined || byteOrder(value, range.lte) <= 0)
  );
}

function meets(value: string | null, match: RecordMatch | undefined): boolean {
  if (match === undefined) return true;
  if (match === null || typeof match === 'string') return value === match;
  if (value === null) return false;
  return Array.isArray(match) ? (match as readonly string[]).includes(value) : within(value, match as RecordRange);
}

/** Whether the record meets every condition of `where` (the meaning every backend implements). */
export const recordMeets = (record: StoredRecord, where: RecordWhere): boolean =>
  meets(record.key, where.key) && meets(record.i1, where.i1) && meets(record.i2, where.i2) && meets(record.i3, where.i3) && meets(record.sort, where.sort);

/** Ascending (sort, key) order. */
export const recordOrder = (a: Pick<StoredRecord, 'sort' | 'key'>, b: Pick<StoredRecord, 'sort' | 'key'>): number => byteOrder(a.sort, b.sort) || byteOrder(a.key, b.key);

/** A find over records in memory, as every backend answers it. */
export function findRecords(records: Iterable<StoredRecord>, query: RecordQuery): StoredRecord[] {
  const sign = query.order === 'desc' ? -1 : 1;
  const after = query.after;
  const out: StoredRecord[] = [];
  for (const record of records) if (recordMeets(record, query) && (!after || sign * recordOrder(record, after) > 0)) out.push(record);
  out.sort((a, b) => sign * recordOrder(a, b));
  return query.limit === undefined ? out : out.slice(0, Math.max(0, query.limit));
}
