import { describe, expect, it } from 'vitest';
import { createTidings } from '../src/index.js';
import { RENDER_BUDGET_MS, RENDER_LIMIT_MS, renderBudget, renderTemplate } from '../src/templates/render.js';
import { memoryStorage } from '@tidings/memory';

/** A template whose cost the payload chooses: n × n iterations. */
const LOOP = '{% for x in payload.items %}{% for y in payload.items %}{{ x }}{{ y }}{% endfor %}{% endfor %}';
const heavy = { payload: { items: Array.from({ length: 3_000 }, (_, i) => i) } };

describe('the render budget of a call', () => {
  it('a render is cut at the per-render limit; once the call has spent its budget, liquid renders fail at once', () => {
    const budget = renderBudget();
    const failures: string[] = [];
    for (let i = 0; i < 50; i++) {
      try {
        renderTemplate(LOOP, heavy, { budget });
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    expect(failures).toHaveLength(50);
    // At most one render per RENDER_LIMIT_MS of the budget ran before it was spent (one more may overrun it).
    const ran = failures.filter((m) => /limit exceeded/i.test(m)).length;
    expect(ran).toBeLessThanOrEqual(Math.ceil(RENDER_BUDGET_MS / RENDER_LIMIT_MS) + 1);
    expect(failures.at(-1)).toMatch(/render budget of this call is spent/);
    // Plain outputs are not liquid renders: they still render after the budget is spent.
    expect(renderTemplate('Hi {{ payload.name }}', { payload: { name: 'Ada' } }, { budget })).toBe('Hi Ada');
  });

  it('a trigger of 1,000 recipients with a payload-fed loop fails the step for each, within the budget, and stores nothing', async () => {
    const tidings = createTidings({ storage: memoryStorage() });
    await tidings.workflows.upsert({ name: 'Loop', triggers: [{ identifier: 'loop' }], steps: [{ template: { type: 'in_app', content: LOOP } }] });
    const to = Array.from({ length: 1_000 }, (_, i) => `s${i}`);
    const result = await tidings.trigger({ name: 'loop', to, payload: heavy.payload, transactionId: 'loop-1' });
    expect(result.status).toBe('processed');
    const trace = await tidings.explain('loop-1');
    expect(trace).toHaveLength(1_000);
    const reasons = trace.flatMap((record) => record.entries.map((entry) => entry.reason));
    expect(reasons.every((reason) => reason.startsWith('template failed to render'))).toBe(true);
    expect(reasons.filter((reason) => /render budget of this call is spent/.test(reason)).length).toBeGreaterThanOrEqual(1_000 - Math.ceil(RENDER_BUDGET_MS / RENDER_LIMIT_MS) - 1);
    expect((await tidings.messages.feed('s0')).items).toEqual([]);
  });
});
