export { parseClockTime, formatClockTime } from './clock-time.js';
export { isValidTimeZone } from './time-zone.js';
export { isWithinSchedule, nextScheduleOpening, scheduleApplies } from './weekly-schedule.js';
export { wallTime, instantsAtWall, zoneOffset, type WallTime } from './wall-clock.js';
