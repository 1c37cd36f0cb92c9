import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProviderStatusEvent } from '../src/delivery/provider.js';
import { withDeliveryReports } from '../src/messages/delivery-state.js';
import type { Message } from '../src/schemas/index.js';

const sent = { _id: 'm1', status: 'sent', channel: 'email', deliveredAt: ['2026-06-01T12:00:00.000Z'] } as unknown as Message;

const report: fc.Arbitrary<ProviderStatusEvent> = fc.record({
  providerMessageId: fc.constant('p1'),
  state: fc.constantFrom('delivered', 'bounced', 'complained', 'opened', 'clicked', 'failed'),
  at: fc.integer({ min: 0, max: 3_600_000 }).map((ms) => new Date(Date.parse('2026-06-01T12:00:00Z') + ms).toISOString()),
  eventId: fc.constantFrom('e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8'),
  bounce: fc.constantFrom('hard' as const, 'soft' as const),
}).map((r) => (r.state === 'bounced' ? r : (({ bounce: _b, ...rest }) => rest)(r)));

/** Reports as they would be kept: the first of each event id (a provider repeats an event with the same content). */
const distinct = (reports: readonly ProviderStatusEvent[]) => {
  const byId = new Map<string, ProviderStatusEvent>();
  for (const r of reports) if (!byId.has(r.eventId)) byId.set(r.eventId, r);
  return [...byId.values()];
};

/** Applies the reports one callback at a time, as they would come. */
const applyInTurn = (reports: readonly ProviderStatusEvent[]) => reports.reduce((m, r) => withDeliveryReports(m, [r]) ?? m, sent);

const RANK = (r: ProviderStatusEvent) => ({ failed: 1, delivered: 2, opened: 3, clicked: 4, complained: 5, bounced: r.bounce === 'soft' ? 1 : 2 })[r.state];

describe('delivery reports', () => {
  it('the state, status and history do not depend on the order the reports came in, nor on a report coming twice', () => {
    fc.assert(
      fc.property(fc.array(report, { maxLength: 10 }).map(distinct), fc.infiniteStream(fc.nat()), (reports, seeds) => {
        const shuffled = [...reports].sort(() => (seeds.next().value % 3) - 1);
        const once = applyInTurn(reports);
        const again = applyInTurn([...shuffled, ...reports]);
        expect(again.delivery).toEqual(once.delivery);
        expect(again.status).toBe(once.status);
      }),
    );
  });

  it('the state never goes back: its rank after more reports is at least what it was, and it is the rank of the furthest report', () => {
    fc.assert(
      fc.property(fc.array(report, { minLength: 1, maxLength: 10 }).map(distinct), (reports) => {
        let before = 0;
        let message = sent;
        for (const r of reports) {
          message = withDeliveryReports(message, [r]) ?? message;
          const now = RANK(message.delivery!.history.find((e) => e.state === message.delivery!.state && e.at === message.delivery!.at) as ProviderStatusEvent);
          expect(now).toBeGreaterThanOrEqual(before);
          before = now;
        }
        expect(before).toBe(Math.max(...reports.map(RANK)));
        expect(message.delivery!.history).toHaveLength(reports.length);
      }),
    );
  });

  it('a bounce or failure as the furthest report makes the message an error; a delivery after a soft bounce makes it sent again', () => {
    const soft: ProviderStatusEvent = { providerMessageId: 'p1', state: 'bounced', bounce: 'soft', at: '2026-06-01T12:01:00.000Z', eventId: 's', reason: 'mailbox full' };
    const bounced = withDeliveryReports(sent, [soft])!;
    expect(bounced).toMatchObject({ status: 'error', errorId: 'bounced', errorText: 'mailbox full', delivery: { state: 'bounced' } });
    const delivered = withDeliveryReports(bounced, [{ providerMessageId: 'p1', state: 'delivered', at: '2026-06-01T12:05:00.000Z', eventId: 'd' }])!;
    expect(delivered).toMatchObject({ status: 'sent', delivery: { state: 'delivered' } });
    expect(delivered.errorId).toBeUndefined();
    expect(withDeliveryReports(delivered, [soft])).toBeNull();
  });
});
