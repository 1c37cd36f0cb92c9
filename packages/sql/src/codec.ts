/** JSON goes in as text on both dialects; Postgres hands jsonb back parsed, SQLite as text. */
export const encodeJson = (value: unknown): string => JSON.stringify(value);

export function decodeJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export const bit = (value: boolean): number => (value ? 1 : 0);

/** Splits rows into batches that keep a statement under the dialect's bound-parameter limit. */
export function chunk<T>(rows: readonly T[], paramsPerRow: number, maxParams: number): T[][] {
  const size = Math.max(1, Math.floor(maxParams / paramsPerRow));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}
