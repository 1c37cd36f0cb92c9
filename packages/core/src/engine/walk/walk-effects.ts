import type { Job, Message } from '../../schemas/index.js';
import { decisionRecord, type DecisionRecord, type TraceEntry } from '../../walk/trace.js';
import type { EngineContext } from '../context.js';
import { linkSentMessages, type TracksStatus } from '../delivery/provider-status.js';
import { effectApplier, ofKind, type EffectApplier } from '../runtime/job-result.js';
import { clearRetriedErrors } from './retry-run.js';
import { storeWalkResults } from './walk-io.js';
import { announceSkips, skipsAny } from './skip-events.js';

/** What a run decided, for `explain`: one decision record per job, its entries in the order added. */
export interface TraceEffect {
  readonly kind: 'trace';
  readonly entries: readonly TraceEntry[];
  /** The workflow revision the run walked. */
  readonly revision?: number | string | undefined;
}

/** Decision records of other walks the run made (a fan-out's inline walks). */
export interface DecisionsEffect {
  readonly kind: 'decisions';
  readonly records: readonly DecisionRecord[];
}

/** Messages the run made, with those among them that failed or were not sent, for the app's events. */
export interface MessagesEffect {
  readonly kind: 'messages';
  readonly messages: readonly Message[];
  readonly failures: readonly { message: Message; error: string }[];
  readonly warnings: readonly { message: Message; reason: string }[];
}

export type WalkEffect = TraceEffect | DecisionsEffect | MessagesEffect;

export const traced = (entries: readonly TraceEntry[] | null, revision?: number | string): TraceEffect | null => (entries ? { kind: 'trace', entries, ...(revision !== undefined && { revision }) } : null);

export const decided = (records: readonly DecisionRecord[]): DecisionsEffect | null => (records.length > 0 ? { kind: 'decisions', records } : null);

export const madeMessages = (messages: readonly Message[], failures: MessagesEffect['failures'] = [], warnings: MessagesEffect['warnings'] = []): MessagesEffect | null =>
  messages.length > 0 || failures.length > 0 || warnings.length > 0 ? { kind: 'messages', messages, failures, warnings } : null;

/** Announces the stored messages: created, sent, failed, not sent (skipped steps are announced from the records). */
function announceMessages(ctx: EngineContext, stored: readonly Message[], effects: readonly MessagesEffect[]): void {
  const failed = new Map(effects.flatMap((e) => e.failures.map((f) => [f.message._id, f.error] as const)));
  const notSent = new Map(effects.flatMap((e) => e.warnings.map((w) => [w.message._id, w.reason] as const)));
  for (const message of stored) {
    ctx.events.emit('message.created', { message });
    if (message.status === 'sent') ctx.events.emit('message.sent', { message });
    const error = failed.get(message._id);
    if (error !== undefined) ctx.events.emit('message.failed', { message, error });
    const reason = notSent.get(message._id);
    if (reason !== undefined) ctx.events.emit('message.warning', { message, reason });
  }
}

/**
 * Stores what the batch's walks made: messages (retried ones in place of the failed ones they
 * replace, sent ones linked to their provider ids) and decision records, then announces the messages.
 */
export function walkApplier(ctx: EngineContext, tracksStatus: TracksStatus): EffectApplier {
  return effectApplier<WalkEffect>(['trace', 'decisions', 'messages'], async (effects, { tx, now, afterCommit }) => {
    const at = now.toISOString();
    const made = ofKind<MessagesEffect>(effects, 'messages');
    await clearRetriedErrors(tx, ctx.env, made.map(({ job, effect }) => ({ job, messages: effect.messages })));
    const traces = new Map<string, { job: Job; entries: TraceEntry[]; revision?: number | string | undefined }>();
    for (const { job, effect } of ofKind<TraceEffect>(effects, 'trace')) {
      const held = traces.get(job.id) ?? { job, entries: [] };
      held.entries.push(...effect.entries);
      held.revision ??= effect.revision;
      traces.set(job.id, held);
    }
    const records = [...ofKind<DecisionsEffect>(effects, 'decisions').flatMap(({ effect }) => effect.records), ...[...traces.values()].map(({ job, entries, revision }) => decisionRecord(ctx.env, job, at, entries, revision))];
    const messages = await linkSentMessages(tx, ctx.env, made.flatMap(({ effect }) => effect.messages), tracksStatus);
    const stored = await storeWalkResults(ctx, tx, messages, records);
    if (stored.length > 0) afterCommit(() => announceMessages(ctx, stored, made.map(({ effect }) => effect)));
    if (skipsAny(records)) afterCommit(() => announceSkips(ctx, records));
  });
}
