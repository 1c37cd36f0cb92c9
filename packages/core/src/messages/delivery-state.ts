import type { ProviderStatusEvent } from '../delivery/provider.js';
import type { DeliveryEvent, Message } from '../schemas/index.js';

/**
 * How far each report takes a message. A later report of a lower rank never moves it back: a late
 * `delivered` after `opened` is kept in the history and changes nothing else. A soft bounce or a
 * failure may be followed by a delivery (the service retried); a hard bounce stands with delivery
 * (mail servers bounce after accepting); engagement comes after both, a complaint last.
 */
const RANK: Record<string, number> = { failed: 1, 'bounced:soft': 1, delivered: 2, 'bounced:hard': 2, opened: 3, clicked: 4, complained: 5 };
const rankOf = (e: Pick<DeliveryEvent, 'state' | 'bounce'>) => RANK[e.state === 'bounced' ? `bounced:${e.bounce ?? 'hard'}` : e.state] ?? 0;

/** Orders reports: by rank, then time, then event id, so the state is the same whatever order they came in. */
const further = (a: DeliveryEvent, b: DeliveryEvent) => rankOf(a) - rankOf(b) || a.at.localeCompare(b.at) || a.eventId.localeCompare(b.eventId);

const toHistory = (e: ProviderStatusEvent): DeliveryEvent => ({
  state: e.state,
  at: e.at,
  eventId: e.eventId,
  ...(e.bounce && { bounce: e.bounce }),
  ...(e.permanent !== undefined && { permanent: e.permanent }),
  ...(e.reason !== undefined && { reason: e.reason }),
});

/**
 * The message after the provider's reports: each new report joins the history (in time order; one
 * already there, by event id, is ignored), the state is the furthest report's. A message whose
 * furthest report is a bounce or a failure becomes `error` with it as the reason (`errorId`
 * `bounced` or `failed`). Null when nothing is new.
 */
export function withDeliveryReports(message: Message, reports: readonly ProviderStatusEvent[]): Message | null {
  const history = [...(message.delivery?.history ?? [])];
  const known = new Set(history.map((e) => e.eventId));
  for (const report of reports) {
    if (known.has(report.eventId)) continue;
    known.add(report.eventId);
    history.push(toHistory(report));
  }
  if (history.length === (message.delivery?.history.length ?? 0)) return null;
  history.sort((a, b) => a.at.localeCompare(b.at) || a.eventId.localeCompare(b.eventId));
  const top = history.reduce((best, e) => (further(e, best) > 0 ? e : best));
  const next: Message = { ...message, delivery: { state: top.state, at: top.at, history } };
  if (top.state === 'bounced' || top.state === 'failed') {
    return { ...next, status: 'error', errorId: top.state, errorText: top.reason ?? (top.state === 'bounced' ? `${top.bounce ?? 'hard'} bounce` : 'the provider could not deliver it') };
  }
  // Delivered after a soft bounce: the error the bounce made is gone.
  if (next.status === 'error' && (next.errorId === 'bounced' || next.errorId === 'failed')) {
    const { errorId: _id, errorText: _text, ...rest } = next;
    return { ...rest, status: 'sent' };
  }
  return next;
}
