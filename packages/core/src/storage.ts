import type {
  Channel,
  Integration,
  Job,
  JobKind,
  Message,
  Notification,
  PreferenceRow,
  Subscriber,
  SubscriberPatch,
  Tenant,
  Topic,
  StoredTopicSubscription,
  Workflow,
  WalkState,
} from './schemas/index.js';
import type { MessageFilter } from './schemas/message-filter.js';
import type { DecisionRecord } from './schemas/decision-record.js';
import type { ProviderStatusEvent } from './schemas/provider-status.js';
import type { Suppression } from './schemas/suppression.js';
import type { WebhookDelivery, WebhookEndpoint } from './schemas/webhook.js';
import type { RecordStore } from './records/record-store.js';

export type { RecordBackend, RecordInput, RecordMatch, RecordQuery, RecordRange, RecordStore, RecordWhere, StoredRecord } from './records/record-store.js';

export type { MessageFilter } from './schemas/message-filter.js';

export type { DecisionRecord, TraceEntry } from './schemas/decision-record.js';

/**
 * The Storage port. Every method is scoped to one environment (`env`), never sees another's records,
 * and takes arrays where callers may have many items (one round trip per batch). Instants are ISO 8601
 * strings in `toISOString()` form and always come from the engine's clock, never from the database.
 * Methods named for a race (`notifications.insertMany`, `jobs.claimDue`, `messages.insertMany`) are atomic
 * on their own; everything else is atomic when run inside `transaction`.
 */
export interface Storage extends StorageRepositories {
  readonly capabilities: StorageCapabilities;
  /**
   * Runs `fn` with repositories whose writes commit together when it resolves and are all undone when
   * it throws (the error is rethrown). Concurrent transactions behave as if run one after the other.
   */
  transaction<T>(fn: (tx: StorageRepositories) => Promise<T>): Promise<T>;
  /** Releases connections the storage opened itself; a client passed in by the user stays open. */
  close(): Promise<void>;
  /**
   * Present on storages shared by several processes: calls `listener` with the environment whenever
   * any process enqueues jobs, so idle job loops wake at once, or with `'*'` when notifications may
   * have been missed (the connection that hears them was lost and is back). Returns the unsubscribe
   * function.
   */
  subscribeJobs?(listener: (env: string) => void): () => void;
  /**
   * Present on storages shared by several processes: the engine publishes each change to an in-app
   * message here, and every process's live streams hear it, so a subscriber connected to one process
   * sees what another delivered. Notices carry ids only; a listener reads what it needs.
   */
  readonly live?: LiveRelay;
}

/** A change to an in-app message, as it crosses processes. */
export interface LiveNotice {
  readonly env: string;
  readonly subscriberId: string;
  readonly messageId: string;
  readonly kind: 'created' | 'changed';
}

export interface LiveRelay {
  publish(notice: LiveNotice): Promise<void>;
  /**
   * Calls `listener` with every notice any process publishes (this one's included), and `onGap` when
   * notices may have been missed (the relay's connection was lost and is back): listeners then re-read
   * what they show. Returns the unsubscribe function.
   */
  subscribe(listener: (notice: LiveNotice) => void, onGap?: () => void): () => void;
  /**
   * Resolves once the relay hears notices (at once when it already does): a live stream that reads
   * its first state after this misses nothing published later. While the relay's connection is
   * down it waits for it to be back; callers bound the wait.
   */
  listening(): Promise<void>;
}

export interface StorageCapabilities {
  /** Several processes may share this storage, and jobs are handed out between them safely. */
  readonly multiProcess: boolean;
  /** Records survive the process. */
  readonly durable: boolean;
}

export interface StorageRepositories {
  readonly workflows: WorkflowRepository;
  readonly subscribers: SubscriberRepository;
  readonly topics: TopicRepository;
  readonly tenants: TenantRepository;
  readonly integrations: IntegrationRepository;
  readonly preferences: PreferenceRepository;
  readonly notifications: NotificationRepository;
  readonly jobs: JobRepository;
  readonly messages: MessageRepository;
  readonly traces: TraceRepository;
  readonly digests: DigestRepository;
  readonly idempotency: IdempotencyRepository;
  readonly deliveryStatus: DeliveryStatusRepository;
  readonly suppressions: SuppressionRepository;
  readonly webhooks: WebhookRepository;
  readonly retention: RetentionRepository;
  readonly frequency: FrequencyRepository;
  readonly settings: SettingsRepository;
  /** Keyed JSON records: the repositories core writes once over it, and features that only store records. */
  readonly records: RecordStore;
}

export interface WorkflowRepository {
  /**
   * Inserts or replaces the workflow with this `_id`. Throws TidingsError `conflict` when another
   * workflow of the environment already has its `identifier`.
   */
  upsert(env: string, workflow: Workflow): Promise<Workflow>;
  /** The workflow whose `_id`, `identifier` or `slug` equals `ref` (checked in that order), or null. */
  find(env: string, ref: string): Promise<Workflow | null>;
  /** Workflows with these `_id`s; missing ones are left out. */
  getMany(env: string, ids: readonly string[]): Promise<Workflow[]>;
  /** Every workflow of the environment, oldest first; empty when there is none. */
  list(env: string): Promise<Workflow[]>;
  /** Removes the workflow; false when there was none. */
  delete(env: string, id: string): Promise<boolean>;
}

/** A subscriber to create or update; `_id` is used only when it is created. */
export interface SubscriberUpsert {
  readonly patch: SubscriberPatch;
  readonly _id: string;
}

export interface SubscriberRepository {
  /**
   * Stores each subscriber whole under its subscriberId, replacing a stored one. Atomic as a batch.
   * (Merging a patch into the stored record is the engine's rule: it reads, merges and puts inside one
   * transaction.)
   */
  putMany(env: string, subscribers: readonly Subscriber[]): Promise<void>;
  /** Subscribers with these subscriberIds (not internal ids); missing ones are left out. */
  getMany(env: string, subscriberIds: readonly string[]): Promise<Subscriber[]>;
  /**
   * One page of the environment's subscriberIds in the backend's order (as `topics.memberPage`): those
   * after `after` (from the first when null) and, with `until`, not after it; at most `limit`; empty
   * when none. Reading page after page from the last id visits every subscriber once, with flat memory.
   */
  idPage(env: string, page: { after: string | null; until?: string; limit: number }): Promise<string[]>;
  /** Removes the subscriber with its preferences and topic memberships; false when there was none. */
  delete(env: string, subscriberId: string): Promise<boolean>;
}

export interface TopicRepository {
  /** Creates the topic with `key` or renames it; returns the stored record. */
  upsert(env: string, topic: Topic): Promise<Topic>;
  get(env: string, key: string): Promise<Topic | null>;
  /** Adds members; a subscriber already in the topic is left as is. */
  addMembers(env: string, topic: Topic, subscribers: readonly Pick<Subscriber, '_id' | 'subscriberId'>[]): Promise<void>;
  /** Removes members by subscriberId; unknown ids are ignored. Returns how many were removed. */
  removeMembers(env: string, topicKey: string, subscriberIds: readonly string[]): Promise<number>;
  /** The subscriberIds of every member of these topics, each once; unknown topics add nothing. */
  memberIds(env: string, topicKeys: readonly string[]): Promise<string[]>;
  /**
   * One page of the members of these topics, each once, in the backend's order of subscriberIds:
   * those after `after` (from the first when null) and, with `until`, not after it; at most `limit`.
   * Reading page after page from the last id of each visits every member once, with flat memory.
   */
  memberPage(env: string, topicKeys: readonly string[], page: { after: string | null; until?: string; limit: number }): Promise<string[]>;
  /** The membership of one subscriber, or null when the topic or the membership does not exist. */
  getSubscription(env: string, topicKey: string, subscriberId: string): Promise<StoredTopicSubscription | null>;
  /**
   * Removes the topic's record; false when there was none. Its memberships are not touched: the
   * engine removes them first, a page at a time (`removeMembers`), so no call holds the write lock long.
   */
  delete(env: string, key: string): Promise<boolean>;
  /** One page of the environment's topics in byte order of their keys: those after `after` (from the first when null), at most `limit`. */
  list(env: string, page: { after: string | null; limit: number }): Promise<Topic[]>;
}

export interface TenantRepository {
  upsert(env: string, tenant: Tenant): Promise<Tenant>;
  get(env: string, identifier: string): Promise<Tenant | null>;
}

export interface IntegrationRepository {
  /**
   * Inserts or replaces by `_id`, as given. Throws `conflict` when another integration has the
   * `identifier`. (One primary per channel is the engine's rule, kept inside its transaction.)
   */
  upsert(env: string, integration: Integration): Promise<Integration>;
  /** Integrations of the environment, oldest first, optionally only active ones or one channel. */
  list(env: string, filter?: { active?: boolean; channel?: Channel }): Promise<Integration[]>;
  get(env: string, id: string): Promise<Integration | null>;
}

export interface PreferenceRepository {
  /** Every stored row of the subscriber (global has `workflowId: null`); empty when none. */
  list(env: string, subscriberId: string): Promise<PreferenceRow[]>;
  /** Rows for many subscribers at once, for the job runner. */
  listMany(env: string, subscriberIds: readonly string[]): Promise<PreferenceRow[]>;
  /** Replaces each row keyed by (subscriberId, workflowId) whole, creating it when absent. */
  putMany(env: string, rows: readonly PreferenceRow[]): Promise<void>;
}

export interface NotificationRepository {
  /**
   * Stores each notification whose `transactionId` is not used in the environment yet (by a stored
   * notification or an earlier one of the batch) and returns the `_id`s it stored, in input order;
   * the others store nothing. Of racing inserts with one transactionId exactly one wins.
   * `callTraces` names the record the call's decision records go to (`TraceRepository.appendCall`).
   */
  insertMany(env: string, notifications: readonly Notification[], options?: { readonly callTraces?: string }): Promise<string[]>;
  getMany(env: string, ids: readonly string[]): Promise<Notification[]>;
  getByTransactionId(env: string, transactionId: string): Promise<Notification | null>;
  /** The notifications of these triggers (by their key: the cheapest read), in the order given; unknown ones are left out. */
  getByTransactionIds(env: string, transactionIds: readonly string[]): Promise<Notification[]>;
  /**
   * The environment's notifications newest first (`createdAt`, then `_id`, descending), created within
   * the bounds when given. The cursor is a position (of the last item), so pages stay
   * stable while new triggers arrive.
   */
  list(env: string, query: NotificationListQuery): Promise<{ items: Notification[]; nextCursor: string | null }>;
}

export interface NotificationListQuery {
  readonly limit: number;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
  /** Only those created at or after / at or before these instants (ISO). */
  readonly createdGte?: string;
  readonly createdLte?: string;
}

export interface ClaimOptions {
  /** Only this environment's jobs; all environments when absent. */
  readonly env?: string;
  readonly workerId: string;
  /** The clock's now: jobs with `runAt ≤ now` whose lease is free or expired are due. */
  readonly now: string;
  readonly limit: number;
  readonly leaseMs: number;
  /** Only jobs of these kinds (a lane of its own); every kind when absent. */
  readonly kinds?: readonly JobKind[];
  /** Jobs of every kind but these. */
  readonly exceptKinds?: readonly JobKind[];
}

/** Which kinds of job a lane runs: those of `kinds` (every kind when absent) but not of `exceptKinds`. */
export type JobLane = Pick<ClaimOptions, 'kinds' | 'exceptKinds'>;

/** Whether a job of `kind` is one the lane runs. */
export const laneTakes = (lane: JobLane, kind: JobKind): boolean => (lane.kinds === undefined || lane.kinds.includes(kind)) && !lane.exceptKinds?.includes(kind);

/** Whether any of `kinds` (of jobs just enqueued) is one the lane runs. */
export const laneTakesAny = (lane: JobLane, kinds: readonly JobKind[]): boolean => kinds.some((kind) => laneTakes(lane, kind));

export interface JobRepository {
  /**
   * Stores new jobs (attempts 0, unlocked) in the environment. A job with a `key` that a stored job of
   * the environment already has moves that job's `runAt` to its own instead of adding a job (the
   * stored job keeps its data and attempts), as graphile-worker's `job_key` in replace mode.
   */
  enqueue(env: string, jobs: readonly Job[]): Promise<void>;
  /**
   * Atomically leases up to `limit` due jobs, every due `transactional` job (priority absent) before any
   * `bulk` one, and within a class earliest `runAt` first (then id): sets `lockedBy = workerId`,
   * `lockedUntil = now + leaseMs`, counts the attempt, and returns them as updated. A job is never
   * handed to two workers while its lease holds; once the lease passes, it is due again.
   */
  claimDue(options: ClaimOptions): Promise<Job[]>;
  /**
   * Extends to `lockedUntil` the lease of each job still leased by `workerId` and returns their ids;
   * jobs another worker took (or that are gone) are left out and unchanged. Inside a transaction the
   * renewed rows stay locked until it ends, so no claim can take them while it runs.
   */
  renew(env: string, ids: readonly string[], workerId: string, lockedUntil: string): Promise<string[]>;
  /**
   * Frees the lease of every job of the environment leased by a worker not in `alive`, so it is due
   * again at once. Only for storages without `multiProcess`: there, every live worker is in this
   * process, and a lease held by any other died with its process. Returns how many were freed.
   */
  releaseLeases(env: string, alive: readonly string[]): Promise<number>;
  /**
   * Whether the subscriber has a job, other than those of `exceptIds`, with `runAt` before `before`,
   * leased or not: a digest's flush waits while events triggered inside its window are on their way.
   */
  hasEarlier(env: string, subscriberId: string, before: string, exceptIds: readonly string[]): Promise<boolean>;
  /**
   * Deletes finished jobs, but only those still leased by `workerId`; returns the ids it deleted.
   * Inside a transaction the deletion holds until it ends, so a batch learns here which jobs it still
   * held and stores the effects of those only.
   */
  complete(env: string, ids: readonly string[], workerId: string): Promise<string[]>;
  /**
   * Releases a job leased by `workerId` to run again at `runAt` with new `data` and `lastError`; false
   * (nothing changed) when the worker no longer holds it.
   */
  reschedule(env: string, id: string, workerId: string, change: { runAt: string; data: Job['data']; lastError: string | null; resetAttempts: boolean }): Promise<boolean>;
  /** Deletes every job of the trigger, leased or not; returns how many. */
  cancelByTransaction(env: string, transactionId: string): Promise<number>;
  /** Deletes every job of the subscriber (walks, unsnoozes, digest flushes they own), leased or not; returns how many. */
  cancelBySubscriber(env: string, subscriberId: string): Promise<number>;
  /** The earliest instant any job (of the lane's kinds, when given) becomes claimable (its `runAt`, or its lease end), or null. */
  nextDueAt(env?: string, lane?: JobLane): Promise<string | null>;
  /** Jobs of the environment, earliest first, optionally of one trigger or subscriber. */
  list(env: string, filter?: { transactionId?: string; subscriberId?: string }): Promise<Job[]>;
  /** How many jobs the environment holds of each kind (due or not, leased or not); kinds with none may be left out. */
  countByKind(env: string): Promise<Partial<Record<JobKind, number>>>;
}

export interface FeedQuery extends MessageFilter {
  readonly limit: number;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
  /** Messages skipped after the cursor (Novu's `offset`). */
  readonly offset?: number;
}

export interface CountQuery {
  readonly channel?: Channel;
  /** Snoozed messages (past this instant), expired ones (`expiresAt ≤ now`) and archived ones are not counted. */
  readonly now?: string;
}

export interface FeedPage {
  readonly items: Message[];
  /** Null on the last page. */
  readonly nextCursor: string | null;
}

export interface MessageRepository {
  /**
   * Stores messages whose `_id` is new and ignores the others (a job run twice creates nothing twice).
   * Returns the messages actually inserted.
   */
  insertMany(env: string, messages: readonly Message[]): Promise<Message[]>;
  /** Messages with these ids that belong to the subscriber (`_subscriberId`); others are left out. */
  getMany(env: string, subscriberInternalId: string, ids: readonly string[]): Promise<Message[]>;
  /** Writes whole messages over the stored ones with the same `_id`. */
  replaceMany(env: string, messages: readonly Message[]): Promise<void>;
  /**
   * The subscriber's messages newest first (`createdAt`, then `_id`, descending). The cursor is a
   * position, not an offset, so pages stay stable while new messages arrive.
   */
  feed(env: string, subscriberInternalId: string, query: FeedQuery): Promise<FeedPage>;
  /** Counts of unarchived, unsnoozed messages, computed by the storage in one query. */
  counts(env: string, subscriberInternalId: string, query?: CountQuery): Promise<{ total: number; unread: number; unseen: number }>;
  /** How many of the subscriber's messages match each filter, in order: one query per filter. */
  countMatching(env: string, subscriberInternalId: string, filters: readonly MessageFilter[]): Promise<number[]>;
  /** The ids of the subscriber's messages that match, newest first. */
  idsMatching(env: string, subscriberInternalId: string, filter: MessageFilter): Promise<string[]>;
  /** Deletes these messages of the subscriber, and the provider references that point to them; returns how many there were. */
  deleteMany(env: string, subscriberInternalId: string, ids: readonly string[]): Promise<number>;
  /** Every message of a trigger, oldest first. */
  listByTransaction(env: string, transactionId: string): Promise<Message[]>;
}

export interface TraceRepository {
  /** Appends records; stored ones never change. */
  append(records: readonly DecisionRecord[]): Promise<void>;
  /**
   * Appends the records of one trigger call's walks as one record under `key`, found through the
   * notifications stored with `callTraces: key` (one row for a bulk call instead of one per trigger).
   */
  appendCall(key: string, records: readonly DecisionRecord[]): Promise<void>;
  /** Records of one trigger, oldest first (ties in append order), optionally one subscriber's. */
  list(env: string, transactionId: string, subscriberId?: string): Promise<DecisionRecord[]>;
  /**
   * The triggers whose records skipped a channel step of this subscriber (a step that made no
   * message), newest record first, those recorded at or after `since` when given, at most `limit`:
   * how an activity view finds a trigger that left a subscriber nothing but skipped steps.
   */
  skippedFor(env: string, subscriberId: string, query: { since?: string; limit: number }): Promise<{ transactionId: string; at: string }[]>;
}

/** One event gathered by a digest. */
export interface DigestEvent {
  readonly transactionId: string;
  readonly notificationId: string;
  readonly payload: Record<string, unknown>;
  readonly at: string;
  /** The event's walk up to the digest step (code workflows): the flush goes on from the owner's. */
  readonly walkState?: WalkState;
}

/** A digest without its events: what a join returns, so joining costs the same however many joined. */
export type DigestHead = Omit<Digest, 'events'> & {
  /** How many events it holds. */
  readonly eventCount: number;
};

/** The events of one (workflow, step, subscriber, digest key) gathered until `dueAt`. */
export interface Digest {
  readonly id: string;
  readonly environmentId: string;
  /** Workflow id, step index, subscriber and digest key value, joined: one open digest per key. */
  readonly key: string;
  readonly workflowId: string;
  readonly stepIndex: number;
  readonly subscriberId: string;
  readonly digestKey: string | null;
  readonly status: 'open' | 'closed';
  readonly openedAt: string;
  readonly dueAt: string;
  /** In the order they joined; the first is the owner whose job flushes the digest. */
  readonly events: readonly DigestEvent[];
}

/** The latest event a backoff digest key recorded, and the time of the one before it. */
export interface DigestLastEvent {
  readonly at: string;
  readonly transactionId: string;
  readonly previous: string | null;
}

/**
 * Digests as rows: the join and backoff rules over them are core's (`joinDigest`, `touchDigestKey`),
 * run inside `transaction`.
 */
export interface DigestRepository {
  /** The open digest of `key`, without its events; null when none is open. */
  openHead(env: string, key: string): Promise<DigestHead | null>;
  /** A digest without its events, open or closed; null when there is none. */
  head(env: string, id: string): Promise<DigestHead | null>;
  /**
   * The digest (open or closed) the event `transactionId` joined under `key`, and whether it is that
   * digest's first event; null when the event joined none.
   */
  membership(env: string, key: string, transactionId: string): Promise<{ digestId: string; first: boolean } | null>;
  /** Stores a new open digest whose first event is `event`. */
  insertOpen(env: string, digest: Omit<Digest, 'events' | 'status'>, event: DigestEvent): Promise<void>;
  /** Appends `event` (joined under `key`) to the digest, whose due time becomes `dueAt`. */
  append(env: string, digestId: string, key: string, event: DigestEvent, dueAt: string): Promise<void>;
  /** What the backoff key last recorded; null when nothing. */
  lastEvent(env: string, key: string): Promise<DigestLastEvent | null>;
  /** Replaces what the backoff key last recorded. */
  putLastEvent(env: string, key: string, last: DigestLastEvent): Promise<void>;
  /** Closes the digest (idempotent) and returns it; null when there is none. */
  close(env: string, id: string): Promise<Digest | null>;
  get(env: string, id: string): Promise<Digest | null>;
  /**
   * Removes the trigger's events from open digests. A digest left empty is deleted and named in
   * `deleted`; the others are returned as updated.
   */
  removeTransaction(env: string, transactionId: string): Promise<{ updated: Digest[]; deleted: string[] }>;
  /** Open digests, earliest due first, optionally of one subscriber or holding one trigger's event. */
  listOpen(env: string, filter?: { subscriberId?: string; transactionId?: string }): Promise<Digest[]>;
  /** How many digests of the environment are open. */
  countOpen(env: string): Promise<number>;
}

/** A response kept for an idempotency key, replayed as it was. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string>;
}

export type IdempotencyBegin =
  /** `since`: when this key's current use began; a released key begun again keeps it. */
  | { readonly state: 'started'; readonly since: string }
  | { readonly state: 'in_flight'; readonly fingerprint: string }
  | { readonly state: 'completed'; readonly fingerprint: string; readonly response: StoredResponse };

/** What is kept for an idempotency key. */
export interface IdempotencyRecord {
  /** The hash of what the request that began the key asked. */
  readonly fingerprint: string;
  /** The response to replay; null while the request runs (or after it was released). */
  readonly response: StoredResponse | null;
  /** Until when the record holds: in flight until then, or its response kept until then. */
  readonly expiresAt: string;
  /** When the key's current use began; null on records stored before it was kept. */
  readonly since: string | null;
  /** Until when a released key begun again keeps `since`; null as `since`. */
  readonly keepUntil: string | null;
  /** The request failed in a way a retry may repeat: the key may be begun again. */
  readonly released: boolean;
}

/** Where a provider's id of a message points: the stored message it sent. */
export interface ProviderRef {
  readonly providerId: string;
  readonly providerMessageId: string;
  readonly messageId: string;
  readonly subscriberInternalId: string;
}

/** A status callback's event whose message was not stored yet when it came. */
export interface HeldStatus {
  readonly providerId: string;
  /**
   * The integration whose callback brought it: only a message sent through that integration takes
   * it. Absent on events held before it was kept (migration 0015), which any integration's message takes.
   */
  readonly integrationId?: string;
  readonly event: ProviderStatusEvent;
  readonly receivedAt: string;
}

/** The bookkeeping of provider status callbacks: message references, and events held for messages not stored yet. */
export interface DeliveryStatusRepository {
  /** Records where each provider message id points; one already recorded is left as it is. */
  link(env: string, refs: readonly ProviderRef[]): Promise<void>;
  /** The references of these provider message ids; unknown ones are left out. */
  find(env: string, providerId: string, providerMessageIds: readonly string[]): Promise<ProviderRef[]>;
  /** Keeps events until their message is stored; an event already held (same provider and `eventId`) is kept once. */
  hold(env: string, held: readonly HeldStatus[]): Promise<void>;
  /** Removes and returns the held events of these provider message ids, in the order they came. */
  takeHeld(env: string, providerId: string, providerMessageIds: readonly string[]): Promise<HeldStatus[]>;
  /** Drops events held since before `before` (their message never came); returns how many. */
  dropHeldBefore(env: string, before: string): Promise<number>;
  /** How many events the integration's callbacks have held (those without an integration are not counted). */
  countHeld(env: string, integrationId: string): Promise<number>;
}

/** Webhook endpoints of an environment and the deliveries of events to them (the outbox). */
export interface WebhookRepository {
  /** Inserts or replaces the endpoint with this `_id`. */
  putEndpoint(env: string, endpoint: WebhookEndpoint): Promise<void>;
  getEndpoint(env: string, id: string): Promise<WebhookEndpoint | null>;
  /** Every endpoint of the environment, oldest first. */
  listEndpoints(env: string): Promise<WebhookEndpoint[]>;
  /** Removes the endpoint and its deliveries; false when there was none. */
  deleteEndpoint(env: string, id: string): Promise<boolean>;
  insertDeliveries(env: string, deliveries: readonly WebhookDelivery[]): Promise<void>;
  getDelivery(env: string, id: string): Promise<WebhookDelivery | null>;
  /** Replaces the stored delivery with this `_id`. */
  putDelivery(env: string, delivery: WebhookDelivery): Promise<void>;
  /** Deliveries newest first (`createdAt`, then `_id`), `limit` at most, those after `after`. */
  listDeliveries(env: string, query: { endpointId?: string; status?: WebhookDelivery['status']; limit: number; after?: { createdAt: string; id: string } }): Promise<WebhookDelivery[]>;
}

/** The addresses of an environment that are not sent to (see `Suppression`). */
export interface SuppressionRepository {
  /** Adds each entry; an address already on the list keeps its entry. */
  add(env: string, entries: readonly Suppression[]): Promise<void>;
  /** Removes the address from the channel's list; false when it was not there. */
  remove(env: string, channel: Suppression['channel'], address: string): Promise<boolean>;
  /** The entries of these addresses of the channel; others are left out. */
  find(env: string, channel: Suppression['channel'], addresses: readonly string[]): Promise<Suppression[]>;
  /** Entries newest first (by `at`, then `address`), `limit` at most, those after `after` (the last entry of the previous page). */
  list(env: string, query: { channel?: Suppression['channel']; limit: number; after?: { at: string; address: string } }): Promise<Suppression[]>;
}

/**
 * One counted event in a sliding window: a throttle step's run that went through, or a send counted
 * by a cap or by an integration's rate. The window rules over them are core's (`frequency/`).
 */
export interface WindowHit {
  /** What is counted: a throttle's, cap's or rate's key (for one subscriber, payload key or integration). */
  readonly key: string;
  /** The counted thing (a job's step, a message): recording it again changes nothing. */
  readonly id: string;
  readonly at: string;
  /** When it no longer counts in any window of its key: it may be deleted from then on. */
  readonly expiresAt: string;
}

/** The hits of sliding windows, counted inside the transaction that decides on them. */
export interface FrequencyRepository {
  /** Records hits; one whose (key, id) is recorded already is kept as it was. */
  record(env: string, hits: readonly WindowHit[]): Promise<void>;
  /** The instants of each key's hits after `since`, oldest first; a key without any is left out. */
  recent(env: string, keys: readonly string[], since: string): Promise<Map<string, string[]>>;
  /** Deletes the hits of these keys that expired at `now`; returns how many. */
  prune(env: string, keys: readonly string[], now: string): Promise<number>;
  /** Deletes up to `limit` hits of any key that expired at `now` (keys not used again); returns how many. */
  pruneExpired(env: string, now: string, limit: number): Promise<number>;
  /** Deletes these hits by (key, id), expired or not (a slot given back); returns how many. */
  forget(env: string, hits: readonly { readonly key: string; readonly id: string }[]): Promise<number>;
}

/** An environment's settings stored as JSON values by name (its caps, say), shared by every process. */
export interface SettingsRepository {
  /** The value stored under `name`, or null. */
  get(env: string, name: string): Promise<unknown>;
  /** Stores `value` under `name`, replacing what was there. */
  put(env: string, name: string, value: unknown): Promise<void>;
}

/**
 * What the sweeper deletes, a batch of at most `limit` rows per call, oldest first, so that no call
 * holds the write lock for long. Messages go with the provider references that point to them.
 */
export interface RetentionRepository {
  /** Deletes messages whose `expiresAt ≤ now`, earliest expiry first; returns them as they were. */
  deleteExpiredMessages(env: string, now: string, limit: number): Promise<Message[]>;
  /** The earliest `expiresAt` of the environment's stored messages; null when none has one. */
  nextExpiry(env: string): Promise<string | null>;
  /** Deletes messages created before `before`, oldest first; returns them as they were. */
  deleteMessagesBefore(env: string, before: string, limit: number): Promise<Message[]>;
  /**
   * Deletes notifications created before `before`, oldest first, but never one whose trigger still
   * has a job or an event in an open digest (its walk is not over). Their decision records go with
   * them, and so do the closed digests whose first event they are (with those digests' events).
   * Returns the transactionIds deleted.
   */
  deleteNotificationsBefore(env: string, before: string, limit: number): Promise<string[]>;
  /** Deletes settled (delivered or failed) webhook deliveries created before `before`; returns how many. */
  deleteDeliveriesBefore(env: string, before: string, limit: number): Promise<number>;
}

/** Idempotency keys as records: the begin rule over them is core's (`beginIdempotencyKey`). */
export interface IdempotencyRepository {
  get(env: string, key: string): Promise<IdempotencyRecord | null>;
  /** Stores the record whole under `key`, replacing a stored one. */
  put(env: string, key: string, record: IdempotencyRecord): Promise<void>;
  /** Stores the response of a started key, kept until `expiresAt`. */
  complete(env: string, key: string, response: StoredResponse, expiresAt: string): Promise<void>;
  /** Frees a started key for a retry (its request failed in a way a retry may repeat); its `since` is kept. */
  release(env: string, key: string): Promise<void>;
  /** Deletes records that count as absent at `now`; returns how many. */
  purgeExpired(env: string, now: string): Promise<number>;
}
