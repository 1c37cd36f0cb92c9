import mitt, { type Emitter } from 'mitt';
import type { Channel, Job, JobKind, Message, Notification, PreferenceChange, WebhookEndpoint } from './schemas/index.js';

/** Every state change the engine makes, by name, with what it carries. */
export type TidingsEvents = {
  /**
   * `subscriberIds`: the subscribers the event names and the members of topics read at trigger time;
   * a large topic audience is read page by page by its fan-out jobs, so only `recipients` counts it.
   */
  'notification.triggered': { notification: Notification; subscriberIds: string[]; recipients: number };
  'message.created': { message: Message };
  'message.sent': { message: Message };
  'message.failed': { message: Message; error: string };
  /** A channel step was not sent (no active integration, no address): the message is stored with status `warning`. */
  'message.warning': { message: Message; reason: string };
  /**
   * A channel step made no message because it was skipped (a preference or a subscription turned its
   * channel off, a filter did not pass, the subscriber's schedule was closed, a cap, …): `reason` says
   * which, as `explain` does.
   */
  'step.skipped': { transactionId: string; subscriberId: string; stepIndex: number; channel: Channel; reason: string };
  'message.read': { message: Message };
  'message.seen': { message: Message };
  'message.unread': { message: Message };
  'message.unseen': { message: Message };
  'message.action': { message: Message };
  'message.snoozed': { message: Message };
  'message.unsnoozed': { message: Message };
  'message.archived': { message: Message };
  'message.unarchived': { message: Message };
  'message.deleted': { message: Message };
  /** An in-app message's expiry came and the sweeper deleted it (it left every feed and count when it expired). */
  'message.expired': { message: Message };
  /** A provider reported on a sent message (delivered, bounced, opened, …): `message.delivery` holds the state and its history. */
  'message.delivery': { message: Message };
  /** A subscriber's preferences changed (through the API, the Inbox, the preference page or one-click unsubscribe). */
  'preference.updated': { change: PreferenceChange };
  /**
   * A debounced burst ran as one trigger of its last event (`transactionId`); `folded` are the
   * transactionIds of the burst's earlier triggers, which run no workflow of their own. `status` is
   * the trigger's (`processed`, or why it was refused, with `error`).
   */
  'debounce.fired': { transactionId: string; folded: string[]; status: string; error?: string[] };
  'digest.flushed': { transactionIds: string[]; subscriberId: string; count: number };
  'job.failed': { job: Job; error: string };
  /** A webhook endpoint's deliveries kept failing for good: it was disabled (see `webhooks.update` to enable it). */
  'webhook.endpoint.disabled': { endpoint: WebhookEndpoint };
  /** Jobs were added: the job loop whose lane runs their kinds wakes to look at them. */
  'jobs.enqueued': { count: number; earliestRunAt: string; kinds: JobKind[] };
};

export type TidingsEmitter = Emitter<TidingsEvents>;

/** The events of a change to a stored message (its creation aside): what live streams and relays follow. */
export const MESSAGE_CHANGE_EVENTS = ['message.read', 'message.seen', 'message.unread', 'message.unseen', 'message.action', 'message.snoozed', 'message.unsnoozed', 'message.archived', 'message.unarchived', 'message.deleted', 'message.expired'] as const;

export const createEmitter = (): TidingsEmitter => mitt<TidingsEvents>();
