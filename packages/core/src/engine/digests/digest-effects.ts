import type { Digest } from '../../storage.js';
import type { EngineContext } from '../context.js';
import { effectApplier, enqueue, type EffectApplier } from '../runtime/job-result.js';
import { traced } from '../walk/walk-effects.js';
import { webhookEvent } from '../webhooks/webhook-effects.js';
import { settleArrival, type DigestArrival } from './settle-digest.js';

/** The walk reached a digest step: the commit joins or opens the digest (or lets the event through). */
export interface DigestArrivalEffect {
  readonly kind: 'digest.arrival';
  readonly arrival: DigestArrival;
}

/** The flush closes this digest (the walk that goes on with its events is queued with it). */
export interface DigestCloseEffect {
  readonly kind: 'digest.close';
  readonly digestId: string;
}

export type DigestEffect = DigestArrivalEffect | DigestCloseEffect;

export const digestArrival = (arrival: DigestArrival): DigestArrivalEffect => ({ kind: 'digest.arrival', arrival });
export const closeDigest = (digestId: string): DigestCloseEffect => ({ kind: 'digest.close', digestId });

/** Joins each arrival to its digest as stored now, in the order the batch's jobs ran; what it decided goes to `explain`. */
export function digestArrivalApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<DigestArrivalEffect>(['digest.arrival'], async (effects, { tx, now, add }) => {
    for (const { job, effect } of effects) {
      const settled = await settleArrival(tx, ctx.env, effect.arrival, now);
      add(job, traced([settled.entry])!);
      if (settled.enqueue.length > 0) add(job, enqueue(settled.enqueue));
    }
  });
}

/** Closes flushed digests (a digest closed already stays as it is) and announces each flush. */
export function digestCloseApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<DigestCloseEffect>(['digest.close'], async (effects, { tx, add, afterCommit }) => {
    const flushed: Digest[] = [];
    for (const { job, effect } of effects) {
      const closed = await tx.digests.close(ctx.env, effect.digestId);
      if (!closed) continue;
      flushed.push(closed);
      add(job, webhookEvent({ type: 'digest.flushed', data: { subscriberId: closed.subscriberId, transactionIds: closed.events.map((e) => e.transactionId), count: closed.events.length } }));
    }
    afterCommit(() => {
      for (const digest of flushed) ctx.events.emit('digest.flushed', { transactionIds: digest.events.map((e) => e.transactionId), subscriberId: digest.subscriberId, count: digest.events.length });
    });
  });
}
