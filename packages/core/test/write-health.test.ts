import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { createTidings, manualClock, type Storage } from '../src/index.js';

describe('health: writes', () => {
  it('a write transaction that fails (a full disk) makes health say so, with the error and since when, until one commits again (a trigger\'s, or the recheck\'s own small write)', async () => {
    const base = memoryStorage();
    let full = false;
    const storage: Storage = { ...base, transaction: (fn) => (full ? Promise.reject(new Error('database or disk is full')) : base.transaction(fn)) };
    const clock = manualClock('2026-05-04T08:00:00.000Z');
    const tidings = createTidings({ storage, clock });
    await tidings.workflows.upsert({ name: 'Hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }] });
    expect(tidings.health().writes).toEqual({ ok: true });
    full = true;
    await expect(tidings.trigger({ name: 'hello', to: 'ada' })).rejects.toThrow('database or disk is full');
    clock.advance(1_000);
    await expect(tidings.trigger({ name: 'hello', to: 'ada' })).rejects.toThrow();
    expect(tidings.health().writes).toEqual({ ok: false, error: 'database or disk is full', since: '2026-05-04T08:00:00.000Z' });
    // Still full: a recheck's own small write fails too. Writable again: an idle engine learns it from the recheck.
    expect(await tidings.recheckWrites()).toMatchObject({ ok: false });
    full = false;
    expect(await tidings.recheckWrites()).toEqual({ ok: true });
    full = true;
    await expect(tidings.trigger({ name: 'hello', to: 'ada' })).rejects.toThrow();
    full = false;
    await tidings.trigger({ name: 'hello', to: 'ada' });
    expect(tidings.health().writes).toEqual({ ok: true });
  });
});
