import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { createTidings, type Provider } from '../src/index.js';
import { manualClock } from '../src/clock.js';
import { storageWith } from '../src/testing/storage-with.js';

/** Resolves after `turns` turns of the event loop: a renewal that is slow to answer, without a clock. */
const turnsOfTheLoop = async (turns: number) => {
  for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe('keeping a batch\'s leases', () => {
  it('a renewal in flight when the batch ends is answered before the batch commits: none lands after the commit', async () => {
    const base = memoryStorage();
    const events: string[] = [];
    let renewed!: () => void;
    const firstRenewal = new Promise<void>((resolve) => (renewed = resolve));
    const storage = storageWith(base, {
      jobs: {
        ...base.jobs,
        async renew(env, ids, workerId, until) {
          events.push('renew asked');
          renewed();
          await turnsOfTheLoop(50);
          const held = await base.jobs.renew(env, ids, workerId, until);
          events.push('renew answered');
          return held;
        },
      },
      transaction: (fn) => base.transaction(async (tx) => (events.push('transaction'), fn(tx))),
    });
    // The send lasts until the lease keeper has asked for a renewal (a third of a 300 ms lease).
    const mail: Provider = { id: 'mailer', channel: 'email', send: async () => (await firstRenewal, { id: 'p-1' }) };
    const tidings = createTidings({ storage, clock: manualClock('2026-05-04T08:00:00.000Z'), providers: [mail], leaseMs: 300 });
    await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
    await tidings.workflows.upsert({ name: 'Mail', triggers: [{ identifier: 'mail' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }] });
    await tidings.trigger({ name: 'mail', to: { subscriberId: 'ada', email: 'ada@x.test' }, transactionId: 'mail-1' });
    events.length = 0;
    await tidings.runDue();
    const asked = events.indexOf('renew asked');
    // The renewal is answered, and only then does the batch commit (its first transaction after the ask).
    expect(events.slice(asked, asked + 3)).toEqual(['renew asked', 'renew answered', 'transaction']);
    expect((await tidings.messages.byTransaction('mail-1')).map((m) => m.status)).toEqual(['sent']);
  });
});
