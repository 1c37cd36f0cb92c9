import { z } from 'zod';
import type { JsonObject, Message } from '../../schemas/index.js';
import { eventNameSchema, signalInputSchema } from '../../schemas/wait.js';
import type { StorageRepositories } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { SignalEvent } from '../../waits/match-event.js';
import type { EngineContext } from '../context.js';
import type { WebhookEvent } from '../webhooks/webhook-outbox.js';
import { recordSignal, recordSignals, type SignalOutcome } from './record-signal.js';

/** `tidings.signal`'s input: the event's subscriber and data, and the app's own transaction to be part of. */
export interface SignalOptions {
  readonly subscriberId?: string;
  readonly data?: Record<string, unknown>;
  /** The `tx` of the app's `storage.transaction`: the signal commits (or is undone) with it. */
  readonly transaction?: StorageRepositories;
}

const nameSchema = z.string({ error: 'must be a string' }).pipe(eventNameSchema);

/** Signals: events of the app that resume waiting runs and cancel runs (`cancelOn`). */
export function signalsApi(ctx: EngineContext) {
  return {
    /**
     * Records an event: every waiting run it matches resumes exactly once, every pending run whose
     * `cancelOn` it matches is cancelled, both inside one transaction (the app's, when given).
     * Throws validation_failed naming the field, recording nothing.
     */
    async signal(name: string, options: SignalOptions = {}): Promise<SignalOutcome> {
      const parsedName = parseInput(nameSchema, name, 'signal name');
      const { transaction, ...rest } = options ?? {};
      const input = parseInput(signalInputSchema, rest, 'signal');
      const now = ctx.clock.now();
      const event: SignalEvent = { name: parsedName, subscriberId: input.subscriberId ?? null, data: input.data, at: now.toISOString() };
      return transaction ? recordSignal(ctx, transaction, event, now) : ctx.storage.transaction((tx) => recordSignal(ctx, tx, event, now));
    },
  };
}

/** The engine's own events a run may wait for. */
const MESSAGE_SIGNALS = new Set(['message.seen', 'message.read', 'message.action', 'message.delivered', 'message.clicked']);

/** What a `message.*` event carries: which message, of which run. */
function messageData(message: Message): JsonObject {
  return {
    messageId: message._id,
    transactionId: message.transactionId,
    workflowId: message.templateIdentifier,
    channel: message.channel,
    ...(message._messageTemplateId !== null && { stepId: message._messageTemplateId }),
    ...(message.cta?.action !== undefined && { action: message.cta.action as unknown as JsonObject }),
  };
}

/**
 * The engine's events for messages (seen, read, action, delivered, clicked) as signals, inside the
 * transaction that recorded them: a run waiting on its message resumes in that very commit.
 */
export async function signalMessageEvents(ctx: EngineContext, tx: StorageRepositories, events: readonly WebhookEvent[]): Promise<void> {
  const now = ctx.clock.now();
  const signals: SignalEvent[] = [];
  for (const event of events) {
    const message = MESSAGE_SIGNALS.has(event.type) ? (event.data as { message?: Message }).message : undefined;
    if (message) signals.push({ name: event.type, subscriberId: message.subscriberId, data: messageData(message), at: now.toISOString() });
  }
  if (signals.length > 0) await recordSignals(ctx, tx, signals, now);
}
