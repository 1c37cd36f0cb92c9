import { z } from 'zod';
import { parseClockTime } from '../schedule/clock-time.js';
import { CHANNELS } from './enums.js';

export const clockTimeSchema = z
  .string()
  .refine((value) => parseClockTime(value) !== null, {
    message: 'must be a 12-hour time like "9:00 AM" or "05:30 pm"',
  });

export const timeRangeSchema = z.object({ start: clockTimeSchema, end: clockTimeSchema });
export type TimeRange = z.infer<typeof timeRangeSchema>;

export const dayScheduleSchema = z.object({
  isEnabled: z.boolean(),
  hours: z.array(timeRangeSchema).optional(),
});
export type DaySchedule = z.infer<typeof dayScheduleSchema>;

export const weeklyScheduleSchema = z.strictObject({
  monday: dayScheduleSchema.optional(),
  tuesday: dayScheduleSchema.optional(),
  wednesday: dayScheduleSchema.optional(),
  thursday: dayScheduleSchema.optional(),
  friday: dayScheduleSchema.optional(),
  saturday: dayScheduleSchema.optional(),
  sunday: dayScheduleSchema.optional(),
});
export type WeeklySchedule = z.infer<typeof weeklyScheduleSchema>;

export const scheduleSchema = z
  .object({
    isEnabled: z.boolean(),
    weeklySchedule: weeklyScheduleSchema.optional(),
  })
  .superRefine((schedule, ctx) => {
    if (schedule.isEnabled && schedule.weeklySchedule && Object.keys(schedule.weeklySchedule).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['weeklySchedule'], message: 'an enabled schedule needs at least one day' });
    }
  });
export type Schedule = z.infer<typeof scheduleSchema>;

export const channelPreferencesSchema = z.strictObject(
  Object.fromEntries(CHANNELS.map((c) => [c, z.boolean().optional()])) as {
    [K in (typeof CHANNELS)[number]]: z.ZodOptional<z.ZodBoolean>;
  },
);
export type ChannelPreferences = z.infer<typeof channelPreferencesSchema>;
