import { type Message, type Tidings } from '@tidings/core';
import { MESSAGE_CHANGE_EVENTS } from '@tidings/core/internal';
import { oncePerBurst } from './burst-log.js';

/** A change to one of an environment's in-app messages, with a way to read the message. */
export interface LiveChange {
  readonly messageId: string;
  readonly kind: 'created' | 'changed';
  /** The message as stored now (null once deleted). Called only by watchers that need it. */
  message(): Promise<Message | null>;
}

/**
 * What changed for one subscriber since the last burst. A bulk action ("mark all as read" over 20,000
 * messages) is one burst, not 20,000 deliveries: `changes` lists at most MAX_LISTED_CHANGES (one per
 * message, newest kind kept), and `overflow` says more happened than is listed, or that changes may
 * have been missed (the relay's connection came back): a watcher then re-reads what it shows.
 */
export interface LiveBurst {
  readonly subscriberId: string;
  readonly changes: readonly LiveChange[];
  readonly overflow: boolean;
}

export type LiveWatcher = (burst: LiveBurst) => Promise<void>;

/** The most changes one burst lists; past it a watcher only refreshes its counts. */
export const MAX_LISTED_CHANGES = 25;

interface Pending {
  changes: Map<string, LiveChange>;
  overflow: boolean;
}

interface Watch {
  readonly watcher: LiveWatcher;
  /** Changes gathered for the next burst; null when there are none. */
  pending: Pending | null;
  /** A burst is being delivered: the next waits for it, so one watcher never has two in flight. */
  running: boolean;
}

interface Hub {
  readonly watches: Map<string, Set<Watch>>;
  detach: () => void;
  flushScheduled: boolean;
}

const hubs = new WeakMap<Tidings, Hub>();

/** How long a new live client waits for the relay to listen before it starts anyway (the database is away). */
const RELAY_WAIT_MS = 10_000;

/**
 * Resolves once changes made from now on, in any process, reach watchers: at once without a relay,
 * else when the relay listens (bounded: a relay that is away signals a gap when it is back).
 */
export function liveReady(tidings: Tidings): Promise<void> {
  const relay = tidings.storage.live;
  if (!relay) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, RELAY_WAIT_MS);
    timer.unref();
    void relay.listening().then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Calls `watcher` with the changes to `subscriberId`'s in-app messages, gathered per tick: from every
 * process when the storage relays them (Postgres), else from this process's engine. However many
 * changes arrive, a watcher has at most one burst in flight and one waiting, so the reads it makes
 * are bounded by the number of watchers, not of changes. Failures are logged once per burst of them.
 * With `firstBurstWhenReady`, the first burst (empty) comes once the relay listens, for the watcher's
 * first read. Returns the function that stops watching.
 */
export function watchSubscriber(tidings: Tidings, subscriberId: string, watcher: LiveWatcher, options: { firstBurstWhenReady?: boolean } = {}): () => void {
  const hub = hubOf(tidings);
  const watch: Watch = { watcher, pending: null, running: false };
  let set = hub.watches.get(subscriberId);
  if (!set) hub.watches.set(subscriberId, (set = new Set()));
  set.add(watch);
  if (options.firstBurstWhenReady) {
    // An empty burst, in line with the others: the watcher reads its first state once nothing can be missed.
    void liveReady(tidings).then(() => {
      pendingOf(watch);
      scheduleFlush(hub);
    });
  }
  return () => {
    set.delete(watch);
    if (set.size === 0 && hub.watches.get(subscriberId) === set) hub.watches.delete(subscriberId);
    if (hub.watches.size === 0) {
      hub.detach();
      hubs.delete(tidings);
    }
  };
}

function hubOf(tidings: Tidings): Hub {
  let hub = hubs.get(tidings);
  if (!hub) {
    const created: Hub = { watches: new Map(), detach: () => undefined, flushScheduled: false };
    created.detach = listen(tidings, (subscriberId, change) => gather(created, subscriberId, change), () => gatherGap(created));
    hubs.set(tidings, (hub = created));
  }
  return hub;
}

function pendingOf(watch: Watch): Pending {
  return (watch.pending ??= { changes: new Map(), overflow: false });
}

function gather(hub: Hub, subscriberId: string, change: LiveChange): void {
  const set = hub.watches.get(subscriberId);
  if (!set) return;
  for (const watch of set) {
    const pending = pendingOf(watch);
    const earlier = pending.changes.get(change.messageId);
    if (earlier) pending.changes.set(change.messageId, { ...change, kind: earlier.kind === 'created' ? 'created' : change.kind });
    else if (pending.changes.size < MAX_LISTED_CHANGES) pending.changes.set(change.messageId, change);
    else pending.overflow = true;
  }
  scheduleFlush(hub);
}

function gatherGap(hub: Hub): void {
  for (const set of hub.watches.values()) for (const watch of set) pendingOf(watch).overflow = true;
  scheduleFlush(hub);
}

function scheduleFlush(hub: Hub): void {
  if (hub.flushScheduled) return;
  hub.flushScheduled = true;
  setImmediate(() => {
    hub.flushScheduled = false;
    for (const [subscriberId, set] of hub.watches) for (const watch of set) deliver(watch, subscriberId);
  });
}

const reportFailure = oncePerBurst('[tidings live]');

function deliver(watch: Watch, subscriberId: string): void {
  if (watch.running || !watch.pending) return;
  const { changes, overflow } = watch.pending;
  watch.pending = null;
  watch.running = true;
  watch
    .watcher({ subscriberId, changes: [...changes.values()], overflow })
    .catch(reportFailure)
    .finally(() => {
      watch.running = false;
      deliver(watch, subscriberId);
    });
}

/**
 * Every change to the engine's in-app messages: from the storage's relay when it has one, else from
 * the engine's own events. Returns the function that stops listening.
 */
function listen(tidings: Tidings, onChange: (subscriberId: string, change: LiveChange) => void, onGap: () => void): () => void {
  const relay = tidings.storage.live;
  if (relay) {
    return relay.subscribe((notice) => {
      if (notice.env !== tidings.environmentId) return;
      const { subscriberId, messageId, kind } = notice;
      onChange(subscriberId, { messageId, kind, message: () => tidings.messages.get(subscriberId, messageId) });
    }, onGap);
  }
  const local = (kind: LiveChange['kind'], deleted = false) => ({ message }: { message: Message }) => {
    if (message.channel === 'in_app') onChange(message.subscriberId, { messageId: message._id, kind, message: async () => (deleted ? null : message) });
  };
  const onCreated = local('created');
  const onChanged = local('changed');
  const onDeleted = local('changed', true);
  const handlerOf = (name: string) => (name === 'message.deleted' || name === 'message.expired' ? onDeleted : onChanged);
  tidings.events.on('message.created', onCreated);
  for (const name of MESSAGE_CHANGE_EVENTS) tidings.events.on(name, handlerOf(name));
  return () => {
    tidings.events.off('message.created', onCreated);
    for (const name of MESSAGE_CHANGE_EVENTS) tidings.events.off(name, handlerOf(name));
  };
}
