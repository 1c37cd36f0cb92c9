import { WEEKDAYS, type TimeUnit, type TimedConfig } from '../schemas/index.js';

const DAY = 86_400_000;

/** A timed digest's rule on the local wall clock: which days, and which minutes of those days. */
export interface TimedRule {
  readonly unit: TimeUnit;
  readonly amount: number;
  readonly config: TimedConfig;
}

/** Local day number (days since 1970-01-01 on the wall clock), from a wall day at 00:00 as UTC ms. */
export const dayNumber = (dayMs: number) => Math.floor(dayMs / DAY);

/** 0 = Monday … 6 = Sunday. */
export const weekdayOf = (dayMs: number) => (new Date(dayMs).getUTCDay() + 6) % 7;

function atTimeSeconds(config: TimedConfig): number {
  const [h = '0', m = '0', s = '0'] = (config.atTime ?? '00:00').split(':');
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}

/** True when the n-th (1–5) or last qualifying day of its month is `dayMs`. */
function ordinalMatches(dayMs: number, ordinal: string, value: NonNullable<TimedConfig['ordinalValue']>): boolean {
  const qualifies = (d: number) => {
    const wd = weekdayOf(d);
    if (value === 'day') return true;
    if (value === 'weekday') return wd < 5;
    if (value === 'weekend') return wd >= 5;
    return WEEKDAYS[wd] === value;
  };
  if (!qualifies(dayMs)) return false;
  const date = new Date(dayMs);
  const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  const days: number[] = [];
  for (let d = first; d < next; d += DAY) if (qualifies(d)) days.push(d);
  if (ordinal === 'last') return days[days.length - 1] === dayMs;
  return days[Number(ordinal) - 1] === dayMs;
}

/** Whether the rule fires on this local day at all. */
export function dayMatches(rule: TimedRule, dayMs: number): boolean {
  const { unit, amount, config } = rule;
  const every = Math.max(1, Math.round(amount));
  switch (unit) {
    case 'seconds':
    case 'minutes':
    case 'hours':
      return true;
    case 'days':
      return dayNumber(dayMs) % every === 0;
    case 'weeks': {
      // Weeks start on Monday; 1970-01-01 was a Thursday, so Monday-based week numbers shift by 3 days.
      const week = Math.floor((dayNumber(dayMs) + 3) / 7);
      const days: readonly string[] = config.weekDays?.length ? config.weekDays : ['monday'];
      return week % every === 0 && days.includes(WEEKDAYS[weekdayOf(dayMs)]!);
    }
    case 'months': {
      const date = new Date(dayMs);
      if ((date.getUTCFullYear() * 12 + date.getUTCMonth()) % every !== 0) return false;
      if (config.monthlyType === 'on') return ordinalMatches(dayMs, config.ordinal ?? '1', config.ordinalValue ?? 'day');
      const monthDays = config.monthDays?.length ? config.monthDays.map(Number) : [1];
      return monthDays.includes(date.getUTCDate());
    }
  }
}

/** Seconds after local midnight at which the rule fires on a matching day, ascending. */
export function secondsOfDay(rule: TimedRule): number[] {
  const every = Math.max(1, Math.round(rule.amount));
  const at = atTimeSeconds(rule.config);
  switch (rule.unit) {
    case 'seconds': {
      const out: number[] = [];
      for (let s = 0; s < 86_400; s += every) out.push(s);
      return out;
    }
    case 'minutes': {
      const out: number[] = [];
      for (let m = 0; m < 1_440; m += every) out.push(m * 60);
      return out;
    }
    case 'hours': {
      const out: number[] = [];
      for (let h = 0; h < 24; h += every) out.push(h * 3600 + (at % 3600));
      return out;
    }
    default:
      return [at];
  }
}
