/** Ids read per query while the trigger marks out the pages of a large audience. */
const READ_PAGE = 10_000;

/** One fan-out job's share of a large audience: the members after `after` and up to `until`. */
export interface AudiencePage {
  readonly after: string | null;
  readonly until: string;
}

/**
 * Where the fan-out jobs of a paged audience read their members: the members of `topicKeys` less
 * `exclude` (the subscribers named directly, and the actor), or every subscriber of the environment.
 */
export type PageSource = { readonly topicKeys: string[]; readonly exclude: string[] } | { readonly everyone: true };

/** A large audience as the trigger records it: `pages` of `chunk` members each, and how many it reaches. */
export interface PagedAudience {
  readonly pages: AudiencePage[];
  readonly source: PageSource;
  readonly count: number;
}

/** An audience as the trigger records it: `members`, read whole, when it is small; else paged. */
export type Audience = { readonly members: string[] } | PagedAudience;

/**
 * Marks out `chunk`-member pages of an audience read in the storage's order, from its `first` ids on
 * and then `READ_PAGE` ids at a time after the last one read, holding only the page bounds: memory
 * stays flat whatever the audience, and each fan-out job reads its own page when it runs. `count` is
 * how many of the ids read are not in `exclude`.
 */
export async function markPages(first: readonly string[], readAfter: (after: string, limit: number) => Promise<string[]>, chunk: number, exclude: ReadonlySet<string>): Promise<{ pages: AudiencePage[]; count: number }> {
  const pages: AudiencePage[] = [];
  let after: string | null = null;
  let inPage = 0;
  let count = 0;
  let last: string | null = null;
  for (let read = first; read.length > 0; read = await readAfter(last!, READ_PAGE)) {
    for (const id of read) {
      if (!exclude.has(id)) count++;
      if (++inPage === chunk) {
        pages.push({ after, until: id });
        after = id;
        inPage = 0;
      }
    }
    last = read.at(-1)!;
  }
  if (inPage > 0) pages.push({ after, until: last! });
  return { pages, count };
}
