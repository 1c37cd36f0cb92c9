import { newId } from '../../ids.js';
import type { StorageRepositories } from '../../storage.js';
import { SIGNAL_RETENTION_MS } from '../../schemas/wait.js';
import { eventMatches, isMessageEvent, type SignalEvent } from '../../waits/match-event.js';
import type { EngineContext } from '../context.js';
import { cancelRuns, type PendingJobs } from './cancel-on.js';
import { endWait } from './end-wait.js';
import { consumeWait, SIGNALS, signalInput, waitsFor, type WaitRecord } from './wait-records.js';

/** What one signal did. */
export interface SignalOutcome {
  /** The signal's id (in `explain`, the job id of the entries it wrote). */
  readonly id: string;
  /** Waiting runs it resumed (or ended, `onEvent: halt`). */
  readonly resumed: number;
  /** Pending runs its `cancelOn` cancelled. */
  readonly cancelled: number;
}

/** Signals of one name pruned per signal: the table never grows past the retention by more than what one burst adds. */
const PRUNE_PAGE = 100;

/**
 * Records events inside `tx`, the transaction of whatever caused them: each waiting run an event
 * matches is resumed exactly once (its wait record is consumed here, and its walk's job queued in the
 * same transaction), each pending run whose `cancelOn` it matches is cancelled, and an app's signal is
 * kept a while for waits that look back. A wait past its timeout is not resumed (its timeout job ends
 * it). The waits of one name and subscriber are read once for all the events (a bulk "mark all read").
 */
export async function recordSignals(ctx: EngineContext, tx: StorageRepositories, events: readonly SignalEvent[], now: Date): Promise<SignalOutcome[]> {
  const { env } = ctx;
  const waiting = new Map<string, WaitRecord[]>();
  const pending: PendingJobs = new Map();
  const outcomes: SignalOutcome[] = [];
  for (const event of events) {
    const id = newId(now);
    if (!isMessageEvent(event.name)) {
      await tx.records.deleteWhere(env, SIGNALS, { i1: event.name, sort: { lt: new Date(now.getTime() - SIGNAL_RETENTION_MS).toISOString() }, limit: PRUNE_PAGE });
      await tx.records.put(env, SIGNALS, [signalInput(id, event)]);
    }
    const group = `${event.name}\u0001${event.subscriberId ?? ''}`;
    let waits = waiting.get(group);
    if (!waits) waiting.set(group, (waits = await waitsFor(tx.records, env, event)));
    let resumed = 0;
    for (const wait of [...waits]) {
      if (wait.timeoutAt <= event.at || wait.startedAt > event.at || !eventMatches({ event: wait.event!, match: wait.match }, wait, event)) continue;
      waits.splice(waits.indexOf(wait), 1);
      const mine = await consumeWait(tx.records, env, wait.waitId);
      if (!mine) continue;
      await endWait(ctx, tx, mine, { kind: 'event', event }, now, id);
      resumed++;
    }
    outcomes.push({ id, resumed, cancelled: await cancelRuns(ctx, tx, event, id, pending) });
  }
  return outcomes;
}

/** Records one event (see `recordSignals`). */
export const recordSignal = async (ctx: EngineContext, tx: StorageRepositories, event: SignalEvent, now: Date): Promise<SignalOutcome> => (await recordSignals(ctx, tx, [event], now))[0]!;
