/** Readers that turn loosely typed JSON values into numbers, instants, booleans and lists, or null. */

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i;

export function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && NUMERIC.test(value)) return Number(value);
  return null;
}

export function asInstant(value: unknown): number | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

export function asBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  return null;
}

/** Scalars as text for exact comparison; objects and arrays have none. */
export function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return null;
}

/** A filter's list value: a JSON array, or comma-separated items (trimmed, empty ones dropped). */
export function asList(value: string): string[] {
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
    } catch {
      // not JSON: read it as a comma-separated list
    }
  }
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Elements of an array field as comparable text (objects by their JSON). */
export function elementsAsText(values: readonly unknown[]): string[] {
  return values.map((v) => asText(v) ?? JSON.stringify(v) ?? '');
}

/** Same item of two lists: identical text, or equal numbers (`1` and `1.0`). */
export function sameItem(a: string, b: string): boolean {
  if (a === b) return true;
  const x = asNumber(a);
  const y = asNumber(b);
  return x !== null && y !== null && x === y;
}
