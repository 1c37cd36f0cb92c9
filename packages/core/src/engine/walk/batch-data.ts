import { normalAddress, type Cap, type Integration, type Job, type JobKind, type Notification, type PreferenceRow, type Subscriber, type Suppression, type Tenant } from '../../schemas/index.js';
import type { RenderMeter } from '../../templates/render.js';
import { groupBy } from '../../util/group-by.js';
import type { EngineContext } from '../context.js';
import { capsInForce, type SlotRef } from '../frequency/caps.js';
import { cpuTurns } from '../runtime/loop-yield.js';
import type { JobHandler } from '../runtime/job-result.js';
import { readWalkSources } from './walk-io.js';
import type { WorkflowOf } from '../revisions/pinned-workflows.js';
import { NO_LOOK, readLooks } from '../email/read-looks.js';
import { lookNeeds } from '../email/look-needs.js';
import type { EmailLook } from '../../email/email-look.js';
import { readTopicReach, type ReachOf } from './topic-reach.js';

/** What a batch's jobs read, loaded once for the whole batch. */
export interface BatchData {
  /** Every job of the batch. */
  readonly jobs: readonly Job[];
  readonly notifications: ReadonlyMap<string, Notification>;
  readonly subscribers: ReadonlyMap<string, Subscriber>;
  /** The workflow a notification's run walks: its pinned revision, or the current one (`pinnedWorkflows`). */
  readonly workflowOf: WorkflowOf;
  readonly tenants: ReadonlyMap<string, Tenant | null>;
  readonly integrations: readonly Integration[];
  readonly preferences: ReadonlyMap<string, PreferenceRow[]>;
  /** The subscriptions each walk's trigger reached its subscriber through, when it came through topics alone. */
  readonly reach: ReachOf;
  /** The batch's subscribers' addresses on the suppression list, by `channel\u0000address`. */
  readonly suppressed: ReadonlyMap<string, Suppression>;
  /** The brand and layouts of a notification's emails, by its tenant (null: none). */
  readonly look: (tenantId: string | null | undefined) => EmailLook;
  /** The caps in force (each send takes its slots in the storage). */
  readonly caps: readonly Cap[];
  /** Cap slots of the batch's sends that did not go, until a reservation or the commit deletes them. */
  readonly slotsGivenBack: SlotRef[];
  /** Liquid time the batch's walks spent so far (each walk has a budget of its own); past BATCH_RENDER_MS the jobs not started yet wait for a later batch. */
  readonly renderMeter: RenderMeter;
  /** Runs the batch's walks of stored workflows one at a time, the loop turning between them (`cpuTurns`). */
  readonly cpuTurns: <T>(work: () => Promise<T>) => Promise<T>;
}

/** A handler of the engine's jobs: each gets the batch's data. */
export type EngineJobHandler<K extends JobKind> = JobHandler<K, BatchData>;

const byKey = <T, K>(items: readonly T[], key: (item: T) => K) => new Map(items.map((item) => [key(item), item]));
const unique = <T>(items: readonly T[]) => [...new Set(items)];

/** Reads what a batch's jobs need, once for the whole batch. */
export async function loadBatch(ctx: EngineContext, jobs: readonly Job[]): Promise<BatchData> {
  const { storage, env } = ctx;
  const walks = jobs.filter((j) => j.kind === 'walk');
  const sourced = jobs.flatMap((j) => (j.kind === 'walk' || j.kind === 'fanout' ? [{ notificationId: j.data.notificationId, transactionId: j.transactionId }] : []));
  const { notifications, workflowOf, tenants } = await readWalkSources(storage, env, sourced);
  const people = unique([...walks.map((j) => j.subscriberId), ...[...notifications.values()].flatMap((n) => (n.actorId ? [n.actorId] : []))]);
  const subscribers = byKey(people.length > 0 ? await storage.subscribers.getMany(env, people) : [], (s) => s.subscriberId);
  const integrations = walks.length > 0 ? await storage.integrations.list(env, { active: true }) : [];
  const preferences = groupBy(walks.length > 0 ? await storage.preferences.listMany(env, unique(walks.map((j) => j.subscriberId))) : [], (row) => row.subscriberId);
  const reach = await readTopicReach(storage, env, walks.flatMap((j) => {
    const notification = notifications.get(j.data.notificationId);
    const subscriber = subscribers.get(j.subscriberId);
    return notification && subscriber ? [{ notification, subscriber }] : [];
  }));
  const suppressed = await suppressedAddresses(ctx, walks.flatMap((j) => subscribers.get(j.subscriberId) ?? []), integrations);
  const caps = sourced.length > 0 ? await capsInForce(ctx) : [];
  const walked = [...notifications.values()].flatMap((n) => workflowOf(n) ?? []);
  const look = walks.length > 0 ? await readLooks(storage.records, env, [...tenants.keys()], lookNeeds(walked, integrations.some((i) => i.channel === 'email')), ctx.options) : () => NO_LOOK;
  return { jobs, notifications, subscribers, workflowOf, tenants, integrations, preferences, reach, suppressed, look, caps, slotsGivenBack: [], renderMeter: { spentMs: 0 }, cpuTurns: cpuTurns() };
}

/** The suppression entries of these subscribers' email addresses and phones, read only for channels with an integration. */
async function suppressedAddresses(ctx: EngineContext, people: readonly Subscriber[], integrations: readonly Integration[]): Promise<Map<string, Suppression>> {
  const found = new Map<string, Suppression>();
  for (const channel of ['email', 'sms'] as const) {
    if (!integrations.some((i) => i.channel === channel)) continue;
    const addresses = unique(people.flatMap((s) => (channel === 'email' ? s.email : s.phone) ?? []).map((a) => normalAddress(channel, a)));
    if (addresses.length === 0) continue;
    for (const entry of await ctx.storage.suppressions.find(ctx.env, channel, addresses)) found.set(`${channel}\u0000${entry.address}`, entry);
  }
  return found;
}
