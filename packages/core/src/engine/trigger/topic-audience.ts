import type { StorageRepositories } from '../../storage.js';
import { topicAudience, type RecipientPlan } from '../../trigger/read-recipients.js';
import { markPages, type Audience } from './audience-pages.js';

/**
 * A topic audience as the trigger records it: `members`, read whole, when it is small (it fits the
 * call's inline room or one fan-out chunk) or its topics carry exclusions; otherwise paged (see
 * `markPages`). `exclude` (the subscribers named directly, and the actor) is left out of the pages by
 * their jobs.
 */
export async function readTopicAudience(
  tx: Pick<StorageRepositories, 'topics'>,
  env: string,
  topics: RecipientPlan['topics'],
  actorId: string | null,
  direct: ReadonlySet<string>,
  sizes: { readonly room: number; readonly chunk: number },
): Promise<Audience> {
  if (topics.some((t) => t.exclude.length > 0)) return { members: [...(await topicAudience(topics, actorId, (keys) => tx.topics.memberIds(env, keys)))] };
  const topicKeys = topics.map((t) => t.topicKey);
  const small = Math.max(sizes.room, sizes.chunk);
  const first = await tx.topics.memberPage(env, topicKeys, { after: null, limit: small + 1 });
  if (first.length <= small) return { members: first.filter((id) => id !== actorId) };
  const exclude = new Set(direct);
  if (actorId !== null) exclude.add(actorId);
  const { pages, count } = await markPages(first, (after, limit) => tx.topics.memberPage(env, topicKeys, { after, limit }), sizes.chunk, exclude);
  return { pages, source: { topicKeys, exclude: [...exclude] }, count };
}
