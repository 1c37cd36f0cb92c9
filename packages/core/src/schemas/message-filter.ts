import { z } from 'zod';
import { severitySchema, type Channel, type Severity } from './enums.js';
import { MAX_FILTER_DATA_KEYS, MAX_FILTER_SEVERITIES, MAX_FILTER_TAG_GROUPS, MAX_FILTER_TAGS, MAX_FILTER_TAGS_PER_GROUP } from './limits.js';

/*
 * The members of a message filter that hold lists, each with its cap (see limits.ts). The caps are
 * checked once the shape is known, so a filter past one is told which cap, not "Invalid input".
 */

const tagSchema = z.string().min(1);

/** What is wrong with the size of a tags filter: [path below `tags`, message] pairs. */
function tagsProblems(tags: readonly string[] | readonly (readonly string[])[]): [PropertyKey[], string][] {
  if (tags.length === 0 || typeof tags[0] === 'string') {
    return tags.length > MAX_FILTER_TAGS_PER_GROUP ? [[[], `must hold at most ${MAX_FILTER_TAGS_PER_GROUP} tags`]] : [];
  }
  const groups = tags as readonly (readonly string[])[];
  if (groups.length > MAX_FILTER_TAG_GROUPS) return [[[], `must hold at most ${MAX_FILTER_TAG_GROUPS} groups of tags`]];
  const problems: [PropertyKey[], string][] = [];
  groups.forEach((group, i) => {
    if (group.length > MAX_FILTER_TAGS_PER_GROUP) problems.push([[i], `must hold at most ${MAX_FILTER_TAGS_PER_GROUP} tags`]);
  });
  const total = groups.reduce((sum, group) => sum + group.length, 0);
  if (problems.length === 0 && total > MAX_FILTER_TAGS) problems.push([[], `must hold at most ${MAX_FILTER_TAGS} tags in all its groups`]);
  return problems;
}

/**
 * `tags` of a message filter: one OR group (`['a', 'b']`: either) or an AND of OR groups
 * (`[['a', 'b'], ['c']]`), within MAX_FILTER_TAGS_PER_GROUP, MAX_FILTER_TAG_GROUPS and MAX_FILTER_TAGS.
 */
export const filterTagsSchema = z.union([z.array(tagSchema), z.array(z.array(tagSchema))]).superRefine((tags, ctx) => {
  for (const [path, message] of tagsProblems(tags)) ctx.addIssue({ code: 'custom', path, message });
});

/** `severity` of a message filter: one, or a list of at most MAX_FILTER_SEVERITIES. */
export const filterSeveritySchema = z.union([severitySchema, z.array(severitySchema)]).superRefine((severity, ctx) => {
  if (Array.isArray(severity) && severity.length > MAX_FILTER_SEVERITIES) ctx.addIssue({ code: 'custom', message: `must hold at most ${MAX_FILTER_SEVERITIES} severities` });
});

/** `data` of a message filter: at most MAX_FILTER_DATA_KEYS members of the message's `data`, each equal to a string, number or boolean. */
export const filterDataSchema = z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()])).superRefine((data, ctx) => {
  if (Object.keys(data).length > MAX_FILTER_DATA_KEYS) ctx.addIssue({ code: 'custom', message: `must hold at most ${MAX_FILTER_DATA_KEYS} members` });
});

/**
 * Which of a subscriber's messages a query reads (Novu's Inbox filters). Every member given must hold;
 * a member left out does not filter. `messageMatches` in core is the reference every backend follows.
 */
export interface MessageFilter {
  readonly channel?: Channel;
  readonly read?: boolean;
  readonly seen?: boolean;
  readonly archived?: boolean;
  /** True: snoozed past `now`; false: not snoozed past `now`. */
  readonly snoozed?: boolean;
  /** Groups of workflow tags: a message carries at least one tag of every group. */
  readonly tags?: readonly (readonly string[])[];
  /** A message of one of these severities. */
  readonly severity?: readonly Severity[];
  /** Members of the message's `data`, each equal to the value given (a string, number or boolean). */
  readonly data?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Messages triggered with exactly these contexts: their sorted `type:id` keys joined by commas
   * (`contextKeyText`); empty for messages triggered with none.
   */
  readonly context?: string;
  /** Created at or after / at or before these instants. */
  readonly createdGte?: string;
  readonly createdLte?: string;
  /** The instant `snoozed` is decided at; a message expired at it (`expiresAt ≤ now`) matches no filter. */
  readonly now: string;
}
