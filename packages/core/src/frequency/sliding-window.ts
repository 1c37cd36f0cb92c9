import type { WindowLength } from '../schemas/frequency.js';

const UNIT_MS: Record<WindowLength['unit'], number> = { seconds: 1_000, minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000 };

export const windowMs = (window: WindowLength): number => Math.round(window.amount * UNIT_MS[window.unit]);

export const describeWindow = (window: WindowLength): string => `${window.amount} ${window.amount === 1 ? window.unit.replace(/s$/, '') : window.unit}`;

/** Where one more hit stands in a sliding window that ends now. */
export interface WindowDecision {
  /** One more fits: fewer than `limit` hits in the window. */
  readonly allowed: boolean;
  /** Hits in the window before this one. */
  readonly count: number;
  /** Where the window begins (exclusive): hits after it count. */
  readonly windowStart: Date;
  /** When one more would fit, when it does not now. */
  readonly freesAt: Date | null;
}

/**
 * Whether one more hit fits in the window `(now - length, now]`, given the key's hits after the
 * window's start, oldest first. When it does not, the window has room again once enough of the oldest
 * hits have left it: the one that brings the count under `limit` leaves `length` after it came.
 */
export function windowDecision(hits: readonly string[], limit: number, now: Date, length: number): WindowDecision {
  const start = now.getTime() - length;
  const inWindow = hits.filter((at) => Date.parse(at) > start).sort();
  const count = inWindow.length;
  const windowStart = new Date(start);
  if (count < limit) return { allowed: true, count, windowStart, freesAt: null };
  return { allowed: false, count, windowStart, freesAt: new Date(Date.parse(inWindow[count - limit]!) + length) };
}
