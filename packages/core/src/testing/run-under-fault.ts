import { manualClock } from '../clock.js';
import { createTidings, type Tidings } from '../engine/create-tidings.js';
import type { Provider } from '../delivery/provider.js';
import type { WebhookTransport } from '../delivery/webhook-transport.js';
import { isTidingsError } from '../errors.js';
import type { Message, WebhookDelivery } from '../schemas/index.js';
import type { Storage } from '../storage.js';
import type { FaultScenario } from './fault-scenarios.js';
import { faultyStorage, type FaultPlan, type InjectedFault } from './faulty-storage.js';
import { T0 } from './fixtures.js';

/** Jobs due within this much of now are retries or expired leases, which a settling run waits for. */
const RETRY_HORIZON_MS = 60_000;
const LEASE_MS = 1_000;

export interface ScenarioRun {
  /** The stored state the run ended in, without ids, instants and anything else a retry may change. */
  readonly state: StoredState;
  /** The fault points the run passed (from the first step), by what each was. */
  readonly points: readonly string[];
  readonly fired: InjectedFault | null;
}

export type StoredState = Record<string, unknown>;

const isInjected = (error: unknown): boolean => {
  for (let e = error as { name?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) if (e.name === 'InjectedFault') return true;
  return false;
};

/** A provider that accepts everything and remembers which message ids it was given. */
function recorder(sent: Set<string>): Provider[] {
  return (['email', 'chat'] as const).map((channel) => ({
    id: 'recorder',
    channel,
    async send(message) {
      sent.add(message.messageId);
      return { id: `rec-${message.messageId}` };
    },
  }));
}

/**
 * Runs a scenario in its own environment of `storage` with the fault of `plan` (none when null), the
 * way production recovers: a call that fails is retried by its client; a job run that fails is
 * followed by a restarted engine; retries and expired leases are waited for on the manual clock.
 * Returns the stored state it ends in.
 */
export async function runScenario(storage: Storage, env: string, scenario: FaultScenario, plan: FaultPlan | null): Promise<ScenarioRun> {
  const faulty = faultyStorage(storage);
  const clock = manualClock(T0);
  const sent = new Set<string>();
  const received = new Set<string>();
  // A webhook receiver that takes everything and remembers each delivery id it got.
  const webhookTransport: WebhookTransport = async (request) => {
    received.add(request.id);
    return { status: 200 };
  };
  const start = (): Tidings =>
    createTidings({ storage: faulty, clock, environmentId: env, providers: recorder(sent), webhookTransport, leaseMs: LEASE_MS, inlineInApp: scenario.inlineInApp ?? false, ...(scenario.inlineLimit !== undefined && { inlineLimit: scenario.inlineLimit }), ...(scenario.fanoutChunk !== undefined && { fanoutChunk: scenario.fanoutChunk }), ...(scenario.workflows && { workflows: scenario.workflows() }), ...(scenario.caps && { caps: scenario.caps }), onError: () => undefined });
  let tidings = start();
  await scenario.setup(tidings);
  await tidings.runDue();

  async function settle(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      try {
        await tidings.runDue();
      } catch (error) {
        if (!isInjected(error)) throw error;
        tidings = start(); // the process "restarts"
        continue;
      }
      const next = await storage.jobs.nextDueAt(env);
      if (next === null) return;
      const wait = Date.parse(next) - clock.now().getTime();
      if (wait > RETRY_HORIZON_MS) return;
      if (wait > 0) clock.advance(wait);
    }
    throw new Error(`scenario "${scenario.name}" did not settle`);
  }

  faulty.arm(plan);
  for (const step of scenario.steps) {
    if ('advance' in step) clock.advance(step.advance);
    else {
      for (let attempt = 1; ; attempt++) {
        try {
          await step.call(tidings);
          break;
        } catch (error) {
          // A retried trigger whose first attempt committed is refused as a used transactionId: done.
          if (attempt > 1 && isTidingsError(error, 'conflict')) break;
          if (!isInjected(error) || attempt >= 3) throw error;
        }
      }
    }
    await settle();
  }
  const points = [...faulty.points];
  const fired = faulty.fired;
  faulty.disarm();
  return { state: await storedState(storage, env, scenario, sent, received), points, fired };
}

function messageState(m: Message) {
  return {
    transactionId: m.transactionId,
    subscriberId: m.subscriberId,
    workflow: m.templateIdentifier,
    channel: m.channel,
    content: m.content,
    subject: m.subject ?? null,
    status: m.status,
    errorId: m.errorId ?? null,
    read: m.read,
    seen: m.seen,
    archived: m.archived,
    snoozed: m.snoozedUntil !== undefined,
    deliveries: m.deliveredAt.length,
    action: m.cta.action ?? null,
  };
}

const sorted = <T>(items: readonly T[]) => [...items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

/** What the reliability promise is about, read back through the port. */
export async function storedState(storage: Storage, env: string, scenario: FaultScenario, sent: ReadonlySet<string>, received: ReadonlySet<string>): Promise<StoredState> {
  const subscribers = await storage.subscribers.getMany(env, scenario.subscribers);
  const people = [];
  const messages: Message[] = [];
  for (const s of sorted(subscribers.map((x) => x.subscriberId)).map((id) => subscribers.find((x) => x.subscriberId === id)!)) {
    const feeds = [];
    for (const archived of [false, true]) feeds.push(...(await storage.messages.feed(env, s._id, { limit: 1_000, archived, now: '9999-12-31T23:59:59.999Z' })).items);
    messages.push(...feeds);
    people.push({
      subscriberId: s.subscriberId,
      firstName: s.firstName ?? null,
      lastName: s.lastName ?? null,
      email: s.email ?? null,
      data: s.data ?? null,
      counts: await storage.messages.counts(env, s._id),
      preferences: sorted((await storage.preferences.list(env, s.subscriberId)).map((row) => ({ workflow: row.workflowId !== null, enabled: row.enabled, channels: row.channels }))),
    });
  }
  const notifications = [];
  for (const transactionId of scenario.transactions) {
    const n = await storage.notifications.getByTransactionId(env, transactionId);
    notifications.push(n && { transactionId, tenantId: n.tenantId, actorId: n.actorId, revision: n.revision ?? null, messages: sorted((await storage.messages.listByTransaction(env, transactionId)).map(messageState)) });
  }
  const tenants = [];
  for (const identifier of scenario.tenants ?? []) {
    const t = await storage.tenants.get(env, identifier);
    tenants.push(t && { identifier: t.identifier, name: t.name, data: t.data });
  }
  const jobs = (await storage.jobs.list(env)).map((j) => ({
    kind: j.kind,
    // A digest's flush job is named after the digest, whose id differs from run to run.
    transactionId: j.kind === 'digest' ? 'digest' : j.transactionId,
    subscriberId: j.subscriberId,
    stepIndex: j.kind === 'walk' ? j.data.stepIndex : null,
    digest: j.kind === 'digest' || (j.kind === 'walk' && j.data.digestId !== undefined),
  }));
  const digests = (await storage.digests.listOpen(env)).map((d) => ({ subscriberId: d.subscriberId, digestKey: d.digestKey, events: d.events.map((e) => e.transactionId) }));
  const providerMessages = messages.filter((m) => m.channel !== 'in_app' && m.status === 'sent');
  const deliveries = await storage.webhooks.listDeliveries(env, { limit: 1_000 });
  // Delivery ids differ from run to run: a delivery is known by its event and what the event is about.
  const about = (d: WebhookDelivery) => {
    const data = d.payload['data'] as { message?: { transactionId?: string; channel?: string }; transactionId?: string; subscriberId?: string } | undefined;
    return { event: d.eventType, transactionId: data?.message?.transactionId ?? data?.transactionId ?? null, channel: data?.message?.channel ?? null, subscriberId: data?.subscriberId ?? null };
  };
  return {
    people,
    notifications,
    tenants,
    jobs: sorted(jobs),
    digests: sorted(digests),
    // At least once: every message stored as sent reached its provider (maybe more than once).
    unsentButStoredAsSent: providerMessages.filter((m) => !sent.has(m._id)).map((m) => m.content),
    // The outbox: each change's events once, and every delivery stored as delivered reached the receiver.
    webhooks: sorted(deliveries.map((d) => ({ ...about(d), status: d.status }))),
    undeliveredButStoredAsDelivered: deliveries.filter((d) => d.status === 'delivered' && !received.has(d._id)).map(about),
    ...(scenario.state && { scenario: await scenario.state(storage, env) }),
  };
}
