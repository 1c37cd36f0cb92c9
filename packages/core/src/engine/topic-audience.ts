import type { StorageRepositories } from '../storage.js';
import { topicAudience, type RecipientPlan } from '../trigger/read-recipients.js';

/** Member ids the trigger reads per query while it marks out the pages of a large topic audience. */
const READ_PAGE = 10_000;

/** One fan-out job's share of a topic audience: the members after `after` and up to `until`. */
export interface AudiencePage {
  readonly after: string | null;
  readonly until: string;
}

/**
 * A topic audience as the trigger records it: `members`, read whole, when it is small (it fits the
 * call's inline room or one fan-out chunk) or its topics carry exclusions; otherwise `pages` of
 * `chunk` members each, marked out by reading the ids a page at a time, so memory stays flat
 * whatever the audience and each fan-out job reads its own page when it runs. `exclude` (the
 * subscribers named directly, and the actor) is left out of the pages by their jobs.
 */
export type TopicAudience = { readonly members: string[] } | { readonly pages: AudiencePage[]; readonly topicKeys: string[]; readonly exclude: string[]; readonly count: number };

export async function readTopicAudience(
  tx: Pick<StorageRepositories, 'topics'>,
  env: string,
  topics: RecipientPlan['topics'],
  actorId: string | null,
  direct: ReadonlySet<string>,
  sizes: { readonly room: number; readonly chunk: number },
): Promise<TopicAudience> {
  if (topics.some((t) => t.exclude.length > 0)) return { members: [...(await topicAudience(topics, actorId, (keys) => tx.topics.memberIds(env, keys)))] };
  const topicKeys = topics.map((t) => t.topicKey);
  const small = Math.max(sizes.room, sizes.chunk);
  const first = await tx.topics.memberPage(env, topicKeys, { after: null, limit: small + 1 });
  if (first.length <= small) return { members: first.filter((id) => id !== actorId) };
  const exclude = new Set(direct);
  if (actorId !== null) exclude.add(actorId);
  const pages: AudiencePage[] = [];
  let after: string | null = null;
  let inPage = 0;
  let count = 0;
  let last: string | null = null;
  for (let read = first; read.length > 0; read = await tx.topics.memberPage(env, topicKeys, { after: last, limit: READ_PAGE })) {
    for (const id of read) {
      if (!exclude.has(id)) count++;
      if (++inPage === sizes.chunk) {
        pages.push({ after, until: id });
        after = id;
        inPage = 0;
      }
    }
    last = read.at(-1)!;
  }
  if (inPage > 0) pages.push({ after, until: last! });
  return { pages, topicKeys, exclude: [...exclude], count };
}
