import { CHANNELS, type Channel } from '../../schemas/index.js';
import type { DecisionRecord } from '../../walk/trace.js';
import type { EngineContext } from '../context.js';

const isChannel = (type: string): type is Channel => (CHANNELS as readonly string[]).includes(type);

/** Announces each channel step the records skipped (`step.skipped`): called once they are committed. */
export function announceSkips(ctx: EngineContext, records: readonly DecisionRecord[]): void {
  for (const record of records) {
    for (const entry of record.entries) {
      if (entry.decision !== 'skipped' || !isChannel(entry.type)) continue;
      ctx.events.emit('step.skipped', { transactionId: record.transactionId, subscriberId: record.subscriberId, stepIndex: entry.stepIndex, channel: entry.type, reason: entry.reason });
    }
  }
}

/** Whether any of the records skipped a channel step (so the commit has skips to announce). */
export const skipsAny = (records: readonly DecisionRecord[]): boolean => records.some((r) => r.entries.some((e) => e.decision === 'skipped' && isChannel(e.type)));
