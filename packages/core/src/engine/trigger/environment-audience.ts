import type { StorageRepositories } from '../../storage.js';
import { markPages, type Audience } from './audience-pages.js';

/**
 * Every subscriber of the environment, for a broadcast: read whole when small and otherwise paged over
 * `subscribers.idPage`, as a topic audience is. Nobody is left out, the actor included: Novu's
 * broadcast reaches every subscriber (its TriggerBroadcast reads them all, with no actor check).
 */
export async function readEnvironmentAudience(tx: Pick<StorageRepositories, 'subscribers'>, env: string, sizes: { readonly room: number; readonly chunk: number }): Promise<Audience> {
  const small = Math.max(sizes.room, sizes.chunk);
  const first = await tx.subscribers.idPage(env, { after: null, limit: small + 1 });
  if (first.length <= small) return { members: first };
  const { pages, count } = await markPages(first, (after, limit) => tx.subscribers.idPage(env, { after, limit }), sizes.chunk, new Set());
  return { pages, source: { everyone: true }, count };
}
