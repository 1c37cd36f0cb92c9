import { z } from 'zod';

const UNIT_MS = { seconds: 1_000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;
const windowUnitSchema = z.enum(['seconds', 'minutes', 'hours', 'days'], { error: 'must be seconds, minutes, hours or days' });
/** The longest debounce window: a burst held longer than a month is a schedule, not a debounce. */
const MAX_WINDOW_MS = 31 * 86_400_000;

const windowSchema = z
  .strictObject({ amount: z.number().positive('must be more than 0'), unit: windowUnitSchema })
  .refine((w) => w.amount * UNIT_MS[w.unit] <= MAX_WINDOW_MS, { path: ['amount'], message: 'must be at most 31 days' });

/** A debounce window in milliseconds. */
export const windowMs = (window: z.output<typeof windowSchema>) => Math.round(window.amount * UNIT_MS[window.unit]);

/**
 * A workflow's or a trigger's debounce: triggers of one workflow, to the same recipients, whose `key`
 * renders alike, become one run with the last one's event, once `period` passed with no other such
 * trigger, and no later than `maxWait` after the first.
 */
export const debounceSchema = z
  .strictObject({
    /** A template over the event (`{{ payload.taskId }}`); events whose key renders alike are one burst. @default '' */
    key: z.string().max(500, 'must be at most 500 characters').default(''),
    period: windowSchema,
    maxWait: windowSchema.optional(),
  })
  .refine((d) => d.maxWait === undefined || windowMs(d.maxWait) >= windowMs(d.period), { path: ['maxWait'], message: 'must be at least the period' });
export type Debounce = z.output<typeof debounceSchema>;
export type DebounceInput = z.input<typeof debounceSchema>;
