import type { Message } from '../../schemas/index.js';
import type { EngineContext } from '../context.js';
import { effectApplier, type EffectApplier } from '../runtime/job-result.js';

/** A change to a stored message, decided by a pure transition of what is stored when it commits. */
export interface MessageUpdateEffect {
  readonly kind: 'message.update';
  readonly subscriberId: string;
  readonly messageId: string;
  /** The message as it should be, or null to leave it as it is. */
  readonly apply: (stored: Message) => Message | null;
}

export const messageUpdate = (subscriberId: string, messageId: string, apply: MessageUpdateEffect['apply']): MessageUpdateEffect => ({ kind: 'message.update', subscriberId, messageId, apply });

/** Applies message updates to the messages as stored now, and announces those it changed (snoozes that ended). */
export function messageUpdateApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<MessageUpdateEffect>(['message.update'], async (effects, { tx, afterCommit }) => {
    const changed: Message[] = [];
    for (const { effect } of effects) {
      const [subscriber] = await tx.subscribers.getMany(ctx.env, [effect.subscriberId]);
      const [stored] = subscriber ? await tx.messages.getMany(ctx.env, subscriber._id, [effect.messageId]) : [];
      const next = stored && effect.apply(stored);
      if (next) changed.push(next);
    }
    if (changed.length === 0) return;
    await tx.messages.replaceMany(ctx.env, changed);
    afterCommit(() => {
      for (const message of changed) ctx.events.emit('message.unsnoozed', { message });
    });
  });
}
