const CLOCK_TIME = /^(0?[1-9]|1[0-2]):([0-5]\d) ?(am|pm)$/i;

/**
 * Minutes after midnight of a 12-hour clock time (`9:00 AM`, `09:00am`, `12:30 PM`), or null when the
 * text is not one. 24-hour forms (`17:00`), hours past 12 (`13:00 AM`) and `12:60 PM` are refused.
 */
export function parseClockTime(text: string): number | null {
  const match = CLOCK_TIME.exec(text.trim());
  if (!match) return null;
  const hour12 = Number(match[1]) % 12;
  const minute = Number(match[2]);
  const pm = match[3]!.toLowerCase() === 'pm';
  return (hour12 + (pm ? 12 : 0)) * 60 + minute;
}

/** The canonical 12-hour text of a minute of the day, e.g. 780 → `1:00 PM`. */
export function formatClockTime(minuteOfDay: number): string {
  const hour24 = Math.floor(minuteOfDay / 60) % 24;
  const minute = minuteOfDay % 60;
  const hour12 = hour24 % 12 === 0 ? 12 : hour24 % 12;
  return `${hour12}:${String(minute).padStart(2, '0')} ${hour24 < 12 ? 'AM' : 'PM'}`;
}
