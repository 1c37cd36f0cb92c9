import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { MAX_HELD_PER_INTEGRATION, MAX_REPORT_BYTES } from '../../delivery/callback-rules.js';
import { CallbackRefused, type Provider, type ProviderCallback, type ProviderStatusEvent } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import type { SuiteContext } from '../storage-under-test.js';

/** A report as the fake service's callbacks carry it. */
interface Report {
  id: string;
  state: ProviderStatusEvent['state'];
  eventId: string;
  bounce?: 'hard' | 'soft';
  address?: string;
}

/**
 * The bounds on status callbacks, on every backend: which integration's messages a callback may
 * change, signed one-time values taken once, and what one integration's callbacks may hold for
 * messages not stored yet.
 */
export function statusCallbacksSuite({ get }: SuiteContext): void {
  describe('status callbacks over this storage', () => {
    /**
     * An engine with a mail service whose callbacks are `{ key, once?, reports }`: signed when `key`
     * is the integration's signing key, and `once` the one-time value the signature covers. Two
     * integrations of it share the service: A (primary, which sends) and B.
     */
    async function twoIntegrations(environmentId: string) {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      let early: (() => Promise<unknown>) | null = null;
      const mail: Provider = {
        id: 'mailer',
        channel: 'email',
        async send(message) {
          const id = `pm-${message.to.email}`;
          await early?.();
          return { id };
        },
        async readStatus(call, integration) {
          const body = JSON.parse(call.body) as { key: string; once?: string; reports: Report[] };
          if (body.key !== integration.signingKey) throw new CallbackRefused('the signature does not match');
          const events = body.reports.map((r) => ({ providerMessageId: r.id, state: r.state, at: integration.now!.toISOString(), eventId: r.eventId, ...(r.bounce && { bounce: r.bounce }), ...(r.address && { address: r.address }) }));
          return body.once ? { events, once: { value: body.once, until: new Date(integration.now!.getTime() + 300_000).toISOString() } } : events;
        },
      };
      const tidings = createTidings({ storage: get(), clock, environmentId, providers: [mail], inlineInApp: false });
      const a = await tidings.integrations.upsert({ name: 'A', identifier: 'mailer-a', providerId: 'mailer', channel: 'email', active: true, primary: true, configurations: { inboundWebhookSigningKey: 'key-a' } });
      const b = await tidings.integrations.upsert({ name: 'B', identifier: 'mailer-b', providerId: 'mailer', channel: 'email', active: true, configurations: { inboundWebhookSigningKey: 'key-b' } });
      await tidings.workflows.upsert({ name: 'm', triggers: [{ identifier: 'm' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }] });
      const call = (body: { key: string; once?: string; reports: Report[] }): ProviderCallback => ({ method: 'POST', url: 'https://app.example.com/hooks', headers: {}, body: JSON.stringify(body) });
      const viaA = (reports: Report[], once?: string) => tidings.providerWebhook(a._id, call({ key: 'key-a', reports, ...(once && { once }) }));
      const viaB = (reports: Report[], once?: string) => tidings.providerWebhook(b._id, call({ key: 'key-b', reports, ...(once && { once }) }));
      /** Sends one email; `before` runs inside the send, before the engine stored the message. */
      const send = async (email: string, before?: () => Promise<unknown>) => {
        early = before ?? null;
        const { transactionId } = await tidings.trigger({ name: 'm', to: { subscriberId: email, email } });
        await tidings.runDue();
        early = null;
        return async () => (await tidings.messages.byTransaction(transactionId!))[0]!;
      };
      return { tidings, clock, a, b, viaA, viaB, send };
    }

    it('status callbacks — change only messages sent through their own integration, stored or held for one not stored yet (issue 40)', async () => {
      const { tidings, a, b, viaA, viaB, send } = await twoIntegrations('env-status-scope');
      const ada = await send('ada@example.com');
      expect(await ada()).toMatchObject({ status: 'sent', providerMessageId: 'pm-ada@example.com', _integrationId: a._id });

      // B's key signs B's callbacks only: A's message is neither changed nor suppressed by them.
      const bounce = { id: 'pm-ada@example.com', state: 'bounced', bounce: 'hard', eventId: 'b1', address: 'ada@example.com' } as const;
      expect(await viaB([bounce])).toEqual({ updated: 0, held: 0 });
      expect(await ada()).toMatchObject({ status: 'sent' });
      expect((await ada()).delivery).toBeUndefined();
      expect(await tidings.suppressions.get('email', 'ada@example.com')).toBeNull();
      expect(await viaA([{ id: 'pm-ada@example.com', state: 'delivered', eventId: 'd1' }])).toEqual({ updated: 1, held: 0 });
      expect((await ada()).delivery?.state).toBe('delivered');

      // Before the commit: B's report is held under B, and the commit that stores A's message drops it.
      const bob = await send('bob@example.com', async () => {
        expect(await viaB([{ id: 'pm-bob@example.com', state: 'bounced', bounce: 'hard', eventId: 'b2', address: 'bob@example.com' }])).toEqual({ updated: 0, held: 1 });
        expect(await viaA([{ id: 'pm-bob@example.com', state: 'delivered', eventId: 'd2' }])).toEqual({ updated: 0, held: 1 });
      });
      expect(await bob()).toMatchObject({ status: 'sent', delivery: { state: 'delivered', history: [{ eventId: 'd2' }] } });
      expect(await tidings.suppressions.get('email', 'bob@example.com')).toBeNull();
      expect(await get().deliveryStatus.countHeld('env-status-scope', b._id)).toBe(0);
    });

    it('status callbacks — a signed one-time value is taken once: the callback that brings it again is refused and changes nothing (issue 40)', async () => {
      const { tidings, clock, a, viaA, send } = await twoIntegrations('env-status-once');
      const ada = await send('ada@example.com');
      expect(await viaA([{ id: 'pm-ada@example.com', state: 'delivered', eventId: 'd1' }], 'token-1')).toEqual({ updated: 1, held: 0 });
      // The same value with another body (a forged bounce), or for a message not stored yet: refused.
      const forged = { id: 'pm-ada@example.com', state: 'bounced', bounce: 'hard', eventId: 'b-forged', address: 'ada@example.com' } as const;
      await expect(viaA([forged], 'token-1')).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringContaining('used already') });
      await expect(viaA([{ id: 'pm-nobody', state: 'delivered', eventId: 'd9' }], 'token-1')).rejects.toMatchObject({ code: 'unauthorized' });
      expect(await ada()).toMatchObject({ status: 'sent', delivery: { state: 'delivered', history: [{ eventId: 'd1' }] } });
      expect(await tidings.suppressions.get('email', 'ada@example.com')).toBeNull();
      expect(await get().deliveryStatus.countHeld('env-status-once', a._id)).toBe(0);
      // Another value is another callback; the refused one is still refused later on.
      expect(await viaA([{ id: 'pm-ada@example.com', state: 'opened', eventId: 'o1' }], 'token-2')).toEqual({ updated: 1, held: 0 });
      clock.advance(60_000);
      await expect(viaA([forged], 'token-2')).rejects.toMatchObject({ code: 'unauthorized' });
      expect((await ada()).delivery?.state).toBe('opened');
    });

    it(`status callbacks — a report over ${MAX_REPORT_BYTES} bytes, or one more held report than an integration may hold (${MAX_HELD_PER_INTEGRATION}), refuses the callback and changes nothing (issue 40)`, async () => {
      const env = 'env-status-held';
      const { clock, a, viaA, viaB, send } = await twoIntegrations(env);
      const ada = await send('ada@example.com');
      const huge = 'x'.repeat(400 * 1024);
      await expect(viaA([{ id: 'pm-unknown', state: 'delivered', eventId: 'e-huge', address: `${huge}@example.com` }], 'token-huge')).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining(`more than the ${MAX_REPORT_BYTES}`) });
      await expect(viaA([{ id: `pm-${huge}`, state: 'delivered', eventId: 'e-huge' }])).rejects.toMatchObject({ code: 'validation_failed' });
      expect(await get().deliveryStatus.countHeld(env, a._id)).toBe(0);

      // A's callbacks hold as many as they may: one more is refused, B's are not, and reports for stored messages still apply.
      const at = clock.now().toISOString();
      await get().deliveryStatus.hold(env, Array.from({ length: MAX_HELD_PER_INTEGRATION - 1 }, (_, i) => ({ providerId: 'mailer', integrationId: a._id, receivedAt: at, event: { providerMessageId: `pm-early-${i}`, state: 'delivered' as const, at, eventId: `e-early-${i}` } })));
      expect(await viaA([{ id: 'pm-last', state: 'delivered', eventId: 'e-last' }])).toEqual({ updated: 0, held: 1 });
      expect(await get().deliveryStatus.countHeld(env, a._id)).toBe(MAX_HELD_PER_INTEGRATION);
      await expect(viaA([{ id: 'pm-one-more', state: 'delivered', eventId: 'e-one-more' }, { id: 'pm-ada@example.com', state: 'delivered', eventId: 'd1' }], 'token-full')).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringContaining(`pass the ${MAX_HELD_PER_INTEGRATION} it may hold`),
      });
      expect((await ada()).delivery).toBeUndefined();
      expect(await get().deliveryStatus.countHeld(env, a._id)).toBe(MAX_HELD_PER_INTEGRATION);
      expect(await viaA([{ id: 'pm-ada@example.com', state: 'delivered', eventId: 'd1' }], 'token-full')).toEqual({ updated: 1, held: 0 });
      expect(await viaB([{ id: 'pm-for-b', state: 'delivered', eventId: 'e-b' }])).toEqual({ updated: 0, held: 1 });
      // Held reports go after a day, and make room again.
      clock.advance(24 * 3_600_000 + 1);
      expect(await viaA([{ id: 'pm-one-more', state: 'delivered', eventId: 'e-one-more' }])).toEqual({ updated: 0, held: 1 });
      expect(await get().deliveryStatus.countHeld(env, a._id)).toBe(1);
    });
  });
}
