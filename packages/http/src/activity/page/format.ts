/// <reference lib="dom" />

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant in the browser's zone, to the second: `2026-06-01 14:03:07`. */
export function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
/** A reason with the instants it names in the browser's zone. */
export const withLocalTimes = (text: string): string => text.replace(INSTANT, (iso) => when(iso));
/** The first instant a reason names, if any. */
export const firstInstant = (text: string): string | null => text.match(INSTANT)?.[0] ?? null;

export const CHANNEL_LABEL: Record<string, string> = { in_app: 'In-app', email: 'Email', sms: 'SMS', chat: 'Chat', push: 'Push' };
export const STATUS_TONE: Record<string, string> = { sent: 'ok', error: 'fail', warning: 'warn', skipped: 'skip' };
/** What a step's outcome is called on the page: a `warning` message was not sent (it had nowhere to go). */
export const STATUS_LABEL: Record<string, string> = { sent: 'sent', error: 'failed', warning: 'not sent', skipped: 'skipped' };
export const statusLabel = (status: string): string => STATUS_LABEL[status] ?? status;
