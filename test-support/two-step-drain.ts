import { createTidings, type Storage } from '@tidings/core';
import type { SqlStorage } from '@tidings/sql';
import { expect } from 'vitest';

/**
 * What the multi-process tests of every SQL backend drain: a workflow of in-app steps around a delay
 * and a digest, triggered for `subscribers` subscribers (three messages each), through jobs only.
 */
export async function seedTwoStep<S extends Storage>(storage: S, subscribers: number) {
  const tidings = createTidings({ storage, inlineInApp: false });
  await tidings.workflows.upsert({
    name: 'two-step',
    triggers: [{ identifier: 'two-step' }],
    steps: [
      { template: { type: 'in_app', content: 'first {{ payload.i }}' } },
      { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'seconds' } },
      { template: { type: 'in_app', content: 'second {{ payload.i }}' } },
      { template: { type: 'digest' }, metadata: { type: 'regular', amount: 1, unit: 'seconds' } },
      { template: { type: 'in_app', content: 'digest {{ step.total_count }}' } },
    ],
  });
  for (let i = 0; i < subscribers; i += 100) {
    const results = await tidings.triggerBulk(Array.from({ length: Math.min(100, subscribers - i) }, (_, k) => ({ name: 'two-step', to: `u${i + k}`, payload: { i: i + k } })));
    expect(results.every((r) => r.status === 'processed')).toBe(true);
  }
  return { storage, tidings };
}

/** The stored messages' count once it reaches `expected`, or whatever it is after `timeoutMs`. */
export async function waitForMessages(storage: SqlStorage, expected: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const rows = await storage.db.selectFrom('tidings_messages').select((eb) => eb.fn.countAll().as('n')).execute();
    const n = Number(rows[0]!.n);
    if (n >= expected || Date.now() - started > timeoutMs) return n;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
