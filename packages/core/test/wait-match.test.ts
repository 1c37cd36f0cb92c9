import { describe, expect, it } from 'vitest';
import { durationSchema, waitMetadataSchema } from '../src/schemas/wait.js';
import { eventMatches, type RunSide, type SignalEvent } from '../src/waits/match-event.js';

const run: RunSide = { subscriberId: 'ada', transactionId: 'tx-1', payload: { orderId: 'o-1', total: 30, customer: { id: 'c-9' } } };
const event = (name: string, data: Record<string, unknown>, subscriberId: string | null = null): SignalEvent => ({ name, data, subscriberId, at: '2026-03-02T10:00:00.000Z' });

describe('which events a wait takes (pure)', () => {
  it('the name, then the subscriber when the event names one', () => {
    expect(eventMatches({ event: 'paid' }, run, event('paid', {}))).toBe(true);
    expect(eventMatches({ event: 'paid' }, run, event('refunded', {}))).toBe(false);
    expect(eventMatches({ event: 'paid' }, run, event('paid', {}, 'ada'))).toBe(true);
    expect(eventMatches({ event: 'paid' }, run, event('paid', {}, 'bob'))).toBe(false);
  });

  it("Inngest's string form: the event's data path equals the payload's (deep values compared whole; a missing one never matches)", () => {
    expect(eventMatches({ event: 'paid', match: 'data.orderId' }, run, event('paid', { orderId: 'o-1' }))).toBe(true);
    expect(eventMatches({ event: 'paid', match: 'data.orderId' }, run, event('paid', { orderId: 'o-2' }))).toBe(false);
    expect(eventMatches({ event: 'paid', match: 'data.customer' }, run, event('paid', { customer: { id: 'c-9' } }))).toBe(true);
    expect(eventMatches({ event: 'paid', match: 'data.missing' }, run, event('paid', {}))).toBe(false);
  });

  it('filters over the event and the run, values rendered against the run', () => {
    const match = [{ isNegated: false, type: 'GROUP' as const, value: 'AND' as const, children: [
      { on: 'event' as const, field: 'data.orderId', operator: 'EQUAL' as const, value: '{{ payload.orderId }}' },
      { on: 'event' as const, field: 'data.amount', operator: 'LARGER_EQUAL' as const, value: '{{ payload.total }}' },
    ] }];
    expect(eventMatches({ event: 'paid', match }, run, event('paid', { orderId: 'o-1', amount: 30 }))).toBe(true);
    expect(eventMatches({ event: 'paid', match }, run, event('paid', { orderId: 'o-1', amount: 29 }))).toBe(false);
    const pro = [{ isNegated: false, type: 'GROUP' as const, value: 'AND' as const, children: [{ on: 'subscriber' as const, field: 'data.plan', operator: 'EQUAL' as const, value: 'pro' }] }];
    expect(eventMatches({ event: 'paid', match: pro }, { ...run, subscriber: { data: { plan: 'pro' } } }, event('paid', {}))).toBe(true);
    expect(eventMatches({ event: 'paid', match: pro }, run, event('paid', {}))).toBe(false);
  });

  it("the engine's message events count only for the run's own messages", () => {
    expect(eventMatches({ event: 'message.read' }, run, event('message.read', { transactionId: 'tx-1' }, 'ada'))).toBe(true);
    expect(eventMatches({ event: 'message.read' }, run, event('message.read', { transactionId: 'tx-2' }, 'ada'))).toBe(false);
    expect(eventMatches({ event: 'message.read' }, run, event('message.read', { transactionId: 'tx-1' }))).toBe(false);
  });

  it('durations: strings and { amount, unit } as milliseconds, bounded; metadata refused naming the field', () => {
    expect(durationSchema.parse('90s')).toBe(90_000);
    expect(durationSchema.parse({ amount: 2, unit: 'hours' })).toBe(7_200_000);
    expect(durationSchema.parse(60_000)).toBe(60_000);
    expect(durationSchema.safeParse('0s').success).toBe(false);
    expect(durationSchema.safeParse('400d').success).toBe(false);
    expect(waitMetadataSchema.parse({ event: 'go', timeout: '1h' })).toEqual({ event: 'go', timeout: 3_600_000, onTimeout: 'continue', onEvent: 'continue' });
    expect(waitMetadataSchema.parse({ token: true, timeout: '1d' })).toEqual({ token: true, timeout: 86_400_000, onTimeout: 'continue' });
    const refused = waitMetadataSchema.safeParse({ event: 'go', timeout: '1h', lookBack: '8d' });
    expect(refused.success).toBe(false);
    expect(JSON.stringify(refused.error?.issues)).toContain('lookBack');
  });
});
