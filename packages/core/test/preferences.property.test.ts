import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvePreferences, type Channel, type Workflow } from '../src/index.js';
import { applyPreferencesPatch } from '../src/internal.js';
import { CHANNELS, type PreferenceRow } from '../src/schemas.js';
import { fixtures } from '../src/testing/index.js';

const flags = fc.record(Object.fromEntries(CHANNELS.map((c) => [c, fc.boolean()])) as Record<Channel, fc.Arbitrary<boolean>>, { requiredKeys: [] });
const stepTypes = fc.uniqueArray(fc.constantFrom(...CHANNELS, 'delay' as const), { maxLength: 6 });

function workflowWith(types: readonly string[], preferenceSettings: Workflow['preferenceSettings']): Workflow {
  return fixtures.workflowRecord('e', {
    _id: 'wf',
    preferenceSettings,
    steps: types.map((type, i) => ({ _id: `s${i}`, active: true, shouldStopOnFail: false, filters: [], variants: [], template: { type: type as Channel } })),
  });
}

// The reference: look at the layers from the most specific down and take the first that says anything.
function reference(channel: Channel, wf: Workflow, global: PreferenceRow | null, own: PreferenceRow | null) {
  const enabled = (global?.enabled ?? true) && (own?.enabled ?? true);
  const subscriberSays = own?.channels[channel] ?? global?.channels[channel];
  const value = subscriberSays ?? wf.preferenceSettings[channel] ?? true;
  return { value: enabled && value, source: subscriberSays !== undefined ? 'subscriber' : 'template' };
}

const row = (workflowId: string | null): fc.Arbitrary<PreferenceRow | null> => fc.option<PreferenceRow>(fc.record({ subscriberId: fc.constant('u'), workflowId: fc.constant(workflowId), enabled: fc.boolean(), channels: flags, updatedAt: fc.constant(fixtures.T0) }), { nil: null });

describe('preferences — properties', () => {
  it('resolvePreferences agrees with a layer-by-layer reference, listing only the workflow’s channels', () => {
    fc.assert(
      fc.property(stepTypes, flags, row(null), row('wf'), (types, settings, global, own) => {
        const wf = workflowWith(types, settings);
        const resolved = resolvePreferences(wf, [global, own].filter((r): r is PreferenceRow => r !== null));
        const channels = CHANNELS.filter((c) => types.includes(c));
        expect(Object.keys(resolved.channels)).toEqual(channels);
        for (const channel of channels) {
          const expected = reference(channel, wf, global, own);
          expect(resolved.channels[channel]).toBe(expected.value);
          expect(resolved.overrides.find((o) => o.channel === channel)?.source).toBe(expected.source);
        }
        expect(resolved.enabled).toBe((global?.enabled ?? true) && (own?.enabled ?? true));
      }),
    );
  });

  const rows = fc.tuple(row(null), row('wf'), row('other')).map((r) => r.filter((x): x is PreferenceRow => x !== null));
  const target = fc.constantFrom(null, 'wf', 'other');
  const apply = (stored: PreferenceRow[], patch: { channels?: Partial<Record<Channel, boolean>> }, workflowId: string | null) => {
    const writes = applyPreferencesPatch(stored, patch, { subscriberId: 'u', workflowId }, fixtures.T0);
    const merged = new Map(stored.map((r) => [r.workflowId, r]));
    for (const w of writes) merged.set(w.workflowId, w);
    return [...merged.values()];
  };

  it('patching with {} changes nothing; patching twice with the same body equals patching once', () => {
    fc.assert(
      fc.property(rows, target, flags, (stored, workflowId, channels) => {
        expect(applyPreferencesPatch(stored, {}, { subscriberId: 'u', workflowId }, fixtures.T0)).toEqual([]);
        const once = apply(stored, { channels }, workflowId);
        expect(apply(once, { channels }, workflowId)).toEqual(once);
      }),
    );
  });

  it('after a global channel patch, every workflow resolves those channels to the patched value', () => {
    fc.assert(
      fc.property(rows, flags, stepTypes, (stored, channels, types) => {
        const enabledRows = stored.map((r) => ({ ...r, enabled: true }));
        const after = apply(enabledRows, { channels }, null);
        const resolved = resolvePreferences(workflowWith(types, {}), after);
        for (const [channel, value] of Object.entries(channels)) {
          if (types.includes(channel as Channel)) expect(resolved.channels[channel as Channel]).toBe(value);
        }
      }),
    );
  });
});
