import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { channelPermitted } from '../src/preferences/index.js';
import type { PreferenceRow, Workflow } from '../src/schemas.js';
import { testEngine } from './helpers.js';

const CATEGORIES = ['marketing', 'news'] as const;
const CHANNELS = ['email', 'sms'] as const;
const flag = fc.option(fc.boolean(), { nil: undefined });
const flags = fc.record({ email: flag, sms: flag });
const defined = (f: { email: boolean | undefined; sms: boolean | undefined }) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined));

/**
 * The written order, as a reference: critical always sends; any level switched off (`enabled: false`)
 * stops it; otherwise the most specific level that says anything decides: workflow, category, global,
 * then the workflow's defaults, then on.
 */
function model(input: { critical: boolean; defaults: Record<string, boolean | undefined>; global: Level; category: Level | null; workflow: Level }, channel: string): boolean {
  if (input.critical) return true;
  const levels = [input.workflow, input.category, input.global].filter((l): l is Level => l !== null);
  if (levels.some((l) => !l.enabled)) return false;
  for (const level of levels) if (level.channels[channel] !== undefined) return level.channels[channel]!;
  return input.defaults[channel] ?? true;
}
type Level = { enabled: boolean; channels: Record<string, boolean | undefined> };

const level = fc.record({ enabled: fc.boolean(), channels: flags });

describe('preference resolution: critical → workflow → category → global → defaults', () => {
  it('a channel step may send exactly when the reference says so', () => {
    fc.assert(
      fc.property(fc.boolean(), flags, level, fc.option(fc.constantFrom(...CATEGORIES), { nil: undefined }), level, level, fc.constantFrom(...CHANNELS), (critical, defaults, global, category, categoryLevel, workflowLevel, channel) => {
        const workflow = { _id: 'w1', critical, category, preferenceSettings: defined(defaults) } as unknown as Workflow;
        const row = (workflowId: string | null, l: Level, cat?: string): PreferenceRow => ({ subscriberId: 's', workflowId, ...(cat && { category: cat }), enabled: l.enabled, channels: defined(l.channels as never), updatedAt: '2026-01-01T00:00:00.000Z' });
        // A row of another category and another workflow must not count.
        const rows = [row(null, global), row('w1', workflowLevel), row(null, categoryLevel, 'marketing'), row(null, { enabled: false, channels: { email: false, sms: false } }, 'other'), row('w2', { enabled: false, channels: {} })];
        const expected = model({ critical, defaults, global, category: category === 'marketing' ? categoryLevel : null, workflow: workflowLevel }, channel);
        expect(channelPermitted(workflow, rows, channel).allowed).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('through the engine: after any sequence of global, category and workflow choices, each workflow gets the last choice that covers it', async () => {
    const target = fc.oneof(
      fc.constant({ kind: 'global' as const }),
      fc.constantFrom(...CATEGORIES).map((key) => ({ kind: 'category' as const, key })),
      fc.constantFrom('w-a', 'w-b', 'w-c').map((id) => ({ kind: 'workflow' as const, id })),
    );
    const choice = fc.record({ target, channel: fc.constantFrom(...CHANNELS), on: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(choice, { maxLength: 8 }), async (choices) => {
        const { tidings } = testEngine();
        const categoryOf: Record<string, string | undefined> = { 'w-a': 'marketing', 'w-b': 'marketing', 'w-c': undefined };
        for (const [id, category] of Object.entries(categoryOf)) {
          await tidings.workflows.upsert({ name: id, triggers: [{ identifier: id }], ...(category && { category }), preferenceSettings: { sms: false }, steps: CHANNELS.map((type) => ({ template: { type, content: 'x' } })) });
        }
        await tidings.subscribers.upsert({ subscriberId: 's' });
        const last = new Map<string, boolean>();
        for (const { target: t, channel, on } of choices) {
          const channels = { [channel]: on };
          if (t.kind === 'global') await tidings.preferences.update('s', { channels });
          else if (t.kind === 'category') await tidings.preferences.update('s', { categories: { [t.key]: channels } });
          else await tidings.preferences.update('s', { workflowId: t.id, channels });
          for (const id of Object.keys(categoryOf)) {
            const covers = t.kind === 'global' || (t.kind === 'category' && categoryOf[id] === t.key) || (t.kind === 'workflow' && t.id === id);
            if (covers) last.set(`${id}:${channel}`, on);
          }
        }
        const { workflows } = await tidings.preferences.get('s');
        for (const id of Object.keys(categoryOf)) {
          const resolved = workflows.find((w) => w.workflow.identifier === id)!;
          for (const channel of CHANNELS) expect(resolved.channels[channel], `${id}:${channel}`).toBe(last.get(`${id}:${channel}`) ?? channel !== 'sms');
        }
      }),
      { numRuns: 60 },
    );
  });
});
