import { evaluateFilters, type FilterContext } from '../filters/evaluate.js';
import type { Filter, JsonObject } from '../schemas/index.js';
import type { EventMatch } from '../schemas/wait.js';
import { readPath } from '../util/path.js';

/** An event as a wait or `cancelOn` sees it: a signal of the app, or one of the engine's `message.*`. */
export interface SignalEvent {
  readonly name: string;
  /** The subscriber it is about; none: any subscriber's runs. */
  readonly subscriberId: string | null;
  readonly data: JsonObject;
  /** When it was recorded (ISO). */
  readonly at: string;
}

/** What of a run an event is matched against. */
export interface RunSide {
  readonly subscriberId: string;
  readonly transactionId: string;
  /** The trigger's payload. */
  readonly payload: JsonObject;
  /** The subscriber's profile as the wait began (`on: 'subscriber'` in filters); none: its id alone. */
  readonly subscriber?: JsonObject;
}

/** Whether an event's name is one of the engine's own, about the run's messages. */
export const isMessageEvent = (name: string) => name.startsWith('message.');

const equal = (a: unknown, b: unknown) => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * Whether `event` is one a run waiting for `expected` (or cancelled by it) takes. Pure. The event must
 * have the name, be about the run's subscriber when it names one, and, for the engine's `message.*`
 * events, be about one of the run's own messages; then `match`: a path (`'data.orderId'`: the event's
 * `data.orderId` equals the payload's `orderId`), or filters over `event`, `payload` and `subscriber`.
 */
export function eventMatches(expected: { readonly event: string; readonly match?: EventMatch | undefined }, run: RunSide, event: SignalEvent): boolean {
  if (event.name !== expected.event) return false;
  if (event.subscriberId !== null && event.subscriberId !== run.subscriberId) return false;
  if (isMessageEvent(event.name) && (event.subscriberId !== run.subscriberId || event.data['transactionId'] !== run.transactionId)) return false;
  const { match } = expected;
  if (match === undefined) return true;
  if (typeof match === 'string') {
    const inData = match.slice('data.'.length);
    return equal(readPath(event.data, inData), readPath(run.payload, inData));
  }
  const context = { event: { name: event.name, data: event.data, subscriberId: event.subscriberId }, payload: run.payload, subscriber: { ...run.subscriber, subscriberId: run.subscriberId } } as FilterContext;
  return evaluateFilters(match as unknown as Filter[], context);
}
