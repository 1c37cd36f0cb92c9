import type { Subscriber } from '../../schemas/index.js';
import { withoutDeviceTokens, type DeadDeviceTokens } from '../../subscribers/drop-device-tokens.js';
import { groupBy } from '../../util/group-by.js';
import type { EngineContext } from '../context.js';
import { effectApplier, type EffectApplier } from '../runtime/job-result.js';

/** Device tokens of a subscriber that push services called gone: the commit removes them. */
export interface DeadTokensEffect {
  readonly kind: 'device-tokens.dead';
  readonly subscriberId: string;
  readonly tokens: readonly DeadDeviceTokens[];
}

export const deadTokens = (subscriberId: string, tokens: readonly DeadDeviceTokens[]): DeadTokensEffect | null => (tokens.length > 0 ? { kind: 'device-tokens.dead', subscriberId, tokens } : null);

/** Removes dead device tokens from the subscribers as stored now, so no later send tries them. */
export function deadTokensApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<DeadTokensEffect>(['device-tokens.dead'], async (effects, { tx }) => {
    const bySubscriber = groupBy(effects, ({ effect }) => effect.subscriberId);
    const changed: Subscriber[] = [];
    for (const subscriber of await tx.subscribers.getMany(ctx.env, [...bySubscriber.keys()])) {
      const next = withoutDeviceTokens(subscriber, bySubscriber.get(subscriber.subscriberId)!.flatMap(({ effect }) => effect.tokens), ctx.now());
      if (next) changed.push(next);
    }
    if (changed.length > 0) await tx.subscribers.putMany(ctx.env, changed);
  });
}
