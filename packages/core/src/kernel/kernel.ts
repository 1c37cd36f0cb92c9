import type { Message } from '../schemas/index.js';
import type { MessageFilter } from '../schemas/message-filter.js';
import type { JobRepository, MessageRepository, TopicRepository } from '../storage.js';
import type { PagePosition } from '../util/page-cursor.js';

/**
 * The part of the Storage port a backend writes itself, besides its record store: where races and
 * indexes live. Core builds every repository of `StorageRepositories` over it and the record store
 * (`records/record-repositories.ts`); the conformance suite tests that whole.
 */
export interface KernelRepositories {
  readonly jobs: KernelJobs;
  readonly messages: KernelMessages;
  readonly topics: KernelTopicMembers;
  readonly retention: KernelRetention;
}

/** The job queue. `hasEarlier` is core's rule (`jobs/has-earlier.ts`); a backend may give it a native fast path. */
export interface KernelJobs extends Omit<JobRepository, 'hasEarlier'> {
  /** A fast path of core's `hasEarlier`: the same answer (the conformance suite compares them), one query. */
  readonly hasEarlier?: JobRepository['hasEarlier'];
}

/** Which messages `messages.find` reads: some of one subscriber's, or every message of one trigger. */
export type MessageLookup = { readonly subscriberInternalId: string; readonly ids: readonly string[] } | { readonly transactionId: string };

/** A page of a subscriber's messages: newest first, those after `after` (a position core encodes as the cursor). */
export interface KernelFeedQuery extends MessageFilter {
  readonly limit: number;
  readonly after?: PagePosition;
  /** Messages skipped after `after` (Novu's `offset`). */
  readonly offset?: number;
}

export interface KernelMessages extends Pick<MessageRepository, 'insertMany' | 'replaceMany' | 'countMatching' | 'idsMatching' | 'deleteMany'> {
  /**
   * The messages of the lookup: of `ids`, those that belong to the subscriber, in any order; of a
   * trigger, every one, oldest first (`createdAt`, then `_id`).
   */
  find(env: string, lookup: MessageLookup): Promise<Message[]>;
  /** Up to `limit` of the subscriber's messages matching the filter, newest first (`createdAt`, then `_id`, descending). */
  feed(env: string, subscriberInternalId: string, query: KernelFeedQuery): Promise<Message[]>;
}

/** Topic memberships. `removeMembers` with a null topic removes the subscribers from every topic. */
export interface KernelTopicMembers extends Pick<TopicRepository, 'addMembers' | 'memberPage'> {
  removeMembers(env: string, topicKey: string | null, subscriberIds: readonly string[]): Promise<number>;
  /** The internal id of the subscriber when it is a member of the topic; null when not. */
  memberOf(env: string, topicKey: string, subscriberId: string): Promise<string | null>;
}

/** Which messages the sweeper deletes: those expired at an instant (`expiresAt ≤ expiredAt`), or created before one. */
export type MessageSweep = { readonly expiredAt: string } | { readonly createdBefore: string };

/** What the sweeper deletes a batch at a time, oldest first (by the instant it sweeps on, then `_id`). */
export interface KernelRetention {
  /** Deletes up to `limit` messages of the sweep; returns them as they were. */
  deleteMessages(env: string, sweep: MessageSweep, limit: number): Promise<Message[]>;
  /** The earliest `expiresAt` of the environment's stored messages; null when none has one. */
  nextExpiry(env: string): Promise<string | null>;
}
