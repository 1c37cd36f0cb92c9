import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../clock.js';
import { ProviderError } from '../../delivery/provider.js';
import type { WebhookTransport } from '../../delivery/webhook-transport.js';
import { createTidings } from '../../engine/create-tidings.js';
import { OUTBOX_DELIVERIES_PER_RUN } from '../../engine/webhooks/webhook-outbox.js';
import { WEBHOOK_CIRCUIT, WEBHOOK_ENDPOINT_CONCURRENCY } from '../../engine/webhooks/webhook-lane.js';
import type { Storage } from '../../storage.js';
import { storageWith } from '../storage-with.js';
import type { SuiteContext } from '../storage-under-test.js';

const note = { name: 'Note', triggers: [{ identifier: 'note' }], steps: [{ template: { type: 'in_app' as const, content: 'Hi {{ payload.n }}' } }] };

/** A transport that records what it was asked, how many requests were in flight at most, and answers as `answer` says. */
function recordingTransport(answer: (url: string) => Promise<{ status: number }>) {
  let inFlight = 0;
  const seen = { calls: [] as string[], maxInFlight: 0 };
  const transport: WebhookTransport = async ({ url }) => {
    seen.calls.push(url);
    inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, inFlight);
    try {
      return await answer(url);
    } finally {
      inFlight--;
    }
  };
  return { transport, seen };
}

/** The storage with the sizes of its `webhooks.insertDeliveries` calls recorded. */
function countingDeliveries(storage: Storage) {
  const inserts: number[] = [];
  const counted = storageWith(storage, {
    transaction: (fn) => storage.transaction((tx) => fn({ ...tx, webhooks: { ...tx.webhooks, insertDeliveries: (env, list) => (inserts.push(list.length), tx.webhooks.insertDeliveries(env, list)) } })),
  });
  return { storage: counted, inserts };
}

/**
 * Webhook deliveries run in a lane of their own: a receiver that never answers holds up no walk, an
 * endpoint has at most a few deliveries in flight and a circuit, and a change's events are written
 * as a few outbox pages, made into deliveries outside its transaction.
 */
export function webhookLaneSuite({ get }: SuiteContext): void {
  describe('webhook lane', () => {
    it('webhook lane — a receiver that never answers holds up no walk: a walk due after 50 stuck deliveries is stored while they hang', async () => {
      const never = new Promise<{ status: number }>(() => undefined);
      const { transport, seen } = recordingTransport(() => never);
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-lane-stuck', webhookTransport: transport, webhookTimeoutMs: 60_000, inlineInApp: false, onError: () => undefined });
      await tidings.workflows.upsert(note);
      await tidings.webhooks.create({ url: 'https://stuck.example.com/hooks', events: ['message.sent'] });
      await tidings.triggerBulk(Array.from({ length: 50 }, (_, n) => ({ name: 'note', to: `s${n}`, payload: { n } })));
      tidings.start();
      await vi.waitFor(() => expect(seen.calls.length).toBeGreaterThan(0), { timeout: 30_000, interval: 10 });
      const { transactionId } = await tidings.trigger({ name: 'note', to: 'ada', payload: { n: 'late' } });
      await vi.waitFor(async () => expect((await tidings.messages.byTransaction(transactionId!)).map((m) => m.content)).toEqual(['Hi late']), { timeout: 30_000, interval: 10 });
      // The stuck endpoint never had more than its share in flight, whatever the lane's concurrency.
      expect(seen.calls.length).toBeLessThanOrEqual(WEBHOOK_ENDPOINT_CONCURRENCY);
      expect(seen.maxInFlight).toBeLessThanOrEqual(WEBHOOK_ENDPOINT_CONCURRENCY);
    });

    it('webhook lane — an endpoint that keeps failing opens its circuit: its deliveries wait without using attempts; never more than its share in flight', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const { transport, seen } = recordingTransport(async () => ({ status: 503 }));
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-lane-circuit', webhookTransport: transport });
      await tidings.workflows.upsert(note);
      const down = await tidings.webhooks.create({ url: 'https://down.example.com/hooks', events: ['message.sent'] });
      await tidings.triggerBulk(Array.from({ length: 20 }, (_, n) => ({ name: 'note', to: `s${n}`, payload: { n } })));
      await tidings.runDue();
      expect(seen.maxInFlight).toBeLessThanOrEqual(WEBHOOK_ENDPOINT_CONCURRENCY);
      expect(seen.calls.length).toBeGreaterThanOrEqual(WEBHOOK_CIRCUIT.failures);
      // Open now: while it stays open, however often the lane runs, nothing reaches the endpoint.
      const whenOpened = seen.calls.length;
      for (let second = 0; second < 30; second++) {
        clock.advance(1_000);
        await tidings.runDue();
      }
      expect(seen.calls.length).toBe(whenOpened);
      // Once it is half-open a few are tried again, and no attempt was used while they waited.
      clock.advance(WEBHOOK_CIRCUIT.openMs);
      await tidings.runDue();
      expect(seen.calls.length).toBeGreaterThan(whenOpened);
      expect(seen.maxInFlight).toBeLessThanOrEqual(WEBHOOK_ENDPOINT_CONCURRENCY);
      const attempts = (await tidings.webhooks.deliveries({ endpointId: down.endpoint._id, limit: 100 })).data.reduce((sum, d) => sum + d.attempts, 0);
      expect(attempts).toBe(seen.calls.length);
    });

    it('webhook lane — an address the transport refuses fails its delivery at once, not after a day of attempts', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const { transport, seen } = recordingTransport(async () => {
        throw new ProviderError('refused to connect: 10.0.0.1 is not a public address', { retryable: false, code: 'address_refused' });
      });
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-lane-refused', webhookTransport: transport });
      await tidings.workflows.upsert(note);
      const internal = await tidings.webhooks.create({ url: 'https://internal.example.com/hooks', events: ['message.sent'] });
      await tidings.trigger({ name: 'note', to: 'ada', payload: { n: 1 } });
      await tidings.runDue();
      for (let hour = 0; hour < 30; hour++) {
        clock.advance(3_600_000);
        await tidings.runDue();
      }
      expect(seen.calls).toHaveLength(1);
      expect((await tidings.webhooks.deliveries({ endpointId: internal.endpoint._id })).data).toEqual([expect.objectContaining({ status: 'failed', attempts: 1, lastError: expect.stringContaining('not a public address') })]);
    });

    it('webhook lane — a change of 100 messages for 11 endpoints writes one outbox page in its transaction; its 1,100 deliveries are made outside it, at most 1,000 a commit', async () => {
      const counted = countingDeliveries(get());
      const received = new Map<string, number>();
      const { transport } = recordingTransport(async (url) => {
        received.set(url, (received.get(url) ?? 0) + 1);
        return { status: 204 };
      });
      const tidings = createTidings({ storage: counted.storage, clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-lane-outbox', webhookTransport: transport });
      await tidings.workflows.upsert(note);
      for (let e = 0; e < 11; e++) await tidings.webhooks.create({ url: `https://hooks-${e}.example.com/in`, events: ['message.sent'] });
      await tidings.trigger({ name: 'note', to: Array.from({ length: 100 }, (_, n) => `s${n}`), payload: { n: 1 } });
      // The trigger's transaction stored its messages and one page of their events, no deliveries.
      expect(counted.inserts).toEqual([]);
      expect((await counted.storage.jobs.countByKind('env-lane-outbox')).outbox).toBe(1);
      await tidings.runDue();
      expect(counted.inserts.reduce((a, b) => a + b, 0)).toBe(1_100);
      expect(Math.max(...counted.inserts)).toBeLessThanOrEqual(OUTBOX_DELIVERIES_PER_RUN);
      expect([...received.values()]).toEqual(Array.from({ length: 11 }, () => 100));
    });
  });
}
