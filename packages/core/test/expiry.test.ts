import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { createTidings, isTidingsError } from '../src/index.js';
import { expiryOf } from '../src/internal.js';
import { inAppWorkflow, testEngine } from './helpers.js';

const T = '2026-06-01T12:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T) + minutes * 60_000).toISOString();

describe('expiry — what is refused, and when a message expires', () => {
  it('a past or malformed expiresAt refuses the event naming the field; in a bulk call it is that event’s error', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('hello'));
    for (const expiresAt of [T, at(-1), 'tomorrow', '2026-06-01 13:00']) {
      const refused = await tidings.trigger({ name: 'hello', to: 'ada', expiresAt }).catch((error: unknown) => error);
      expect(isTidingsError(refused, 'validation_failed'), expiresAt).toBe(true);
      expect((refused as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['expiresAt']);
    }
    const [result] = await tidings.triggerBulk([{ name: 'hello', to: 'ada', expiresAt: at(-5) }]);
    expect(result).toMatchObject({ status: 'error', error: ['expiresAt: must be in the future'] });
    expect(await tidings.messages.counts('ada')).toEqual({ total: 0, unread: 0, unseen: 0 });
  });

  it('a ttl belongs to in-app steps (JSON workflows); the retention policy is checked when the engine is made', async () => {
    const { tidings } = testEngine();
    const email = { name: 'mail', triggers: [{ identifier: 'mail' }], steps: [{ template: { type: 'email' as const, subject: 's', content: 'c' }, ttl: { amount: 1, unit: 'days' as const } }] };
    await expect(tidings.workflows.upsert(email)).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'steps[0].ttl' }] });
    await expect(tidings.workflows.upsert(inAppWorkflow('x', 'hi', { steps: [{ template: { type: 'in_app', content: 'hi' }, ttl: { amount: 0, unit: 'days' } }] }))).rejects.toMatchObject({ code: 'validation_failed' });
    const made = (retention: unknown) => () => createTidings({ storage: memoryStorage(), retention: retention as never });
    expect(made({ messages: { days: 0 } })).toThrow(expect.objectContaining({ code: 'validation_failed', issues: [expect.objectContaining({ path: 'retention.messages.days' })] }));
    expect(made({ notifications: { days: 1.5 } })).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'retention.notifications.days' })] }));
    expect(made({ message: { days: 30 } })).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'retention.message' })] }));
    expect(made({ messages: { days: 90 }, notifications: { days: 30 } })).not.toThrow();
  });

  it('expiryOf — the earlier of the trigger’s expiresAt and createdAt + ttl', () => {
    expect(expiryOf(undefined, undefined, T)).toBeUndefined();
    expect(expiryOf(at(30), undefined, T)).toBe(at(30));
    expect(expiryOf(undefined, { amount: 10, unit: 'minutes' }, T)).toBe(at(10));
    expect(expiryOf(at(30), { amount: 1, unit: 'hours' }, T)).toBe(at(30));
    expect(expiryOf(at(90), { amount: 1, unit: 'hours' }, T)).toBe(at(60));
  });

  it('an in-app step reached after the trigger’s expiry (behind a delay) is not made; explain says why; other channels’ messages never expire', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert({
      name: 'late',
      triggers: [{ identifier: 'late' }],
      steps: [{ template: { type: 'in_app', content: 'now' } }, { template: { type: 'delay' }, metadata: { type: 'regular', amount: 2, unit: 'hours' } }, { template: { type: 'in_app', content: 'later' } }, { template: { type: 'email', subject: 'later', content: 'later' } }],
    });
    const { transactionId } = await tidings.trigger({ name: 'late', to: 'ada', expiresAt: at(60) });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(transactionId!)).map((m) => [m.content, m.expiresAt])).toEqual([['now', at(60)]]);
    clock.advance(120 * 60_000);
    await tidings.runDue();
    // The email (stored as not sent: no integration) carries no expiry and stays.
    expect((await tidings.messages.byTransaction(transactionId!)).map((m) => [m.channel, m.expiresAt])).toEqual([['email', undefined]]);
    const entries = (await tidings.explain(transactionId!, 'ada')).flatMap((r) => r.entries);
    expect(entries.find((e) => e.stepIndex === 2)).toMatchObject({ decision: 'skipped', reason: expect.stringContaining('expired') });
    expect(entries.find((e) => e.decision === 'expired')).toMatchObject({ stepIndex: 0 });
  });
});
