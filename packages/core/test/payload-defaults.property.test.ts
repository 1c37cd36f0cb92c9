import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPath } from '../src/internal.js';
import { fixtures } from '../src/testing/index.js';
import { withPayloadDefaults } from '../src/trigger/payload-defaults.js';
import { testEngine } from './helpers.js';

const key = fc.constantFrom('a', 'b', 'c');
const path = fc.array(key, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean());

const workflowWith = (variables: { name: string; defaultValue?: unknown; required?: boolean }[]) => {
  const base = fixtures.workflowRecord('e');
  const step = base.steps[0]!;
  return { ...base, steps: [{ ...step, template: { ...step.template, variables: variables as never } }] };
};

describe('payload defaults (Novu’s step variables) — properties', () => {
  it('for any payload and variables: every value the event gives is kept; a variable left out gets its default where its path can hold one', () => {
    const payload = fc.dictionary(key, fc.oneof(leaf, fc.dictionary(key, leaf, { maxKeys: 3 })), { maxKeys: 3 });
    const variable = fc.record({ name: path, defaultValue: fc.option(leaf, { nil: undefined }), required: fc.boolean() });
    fc.assert(
      fc.property(payload, fc.array(variable, { maxLength: 4 }), (given, variables) => {
        const { payload: filled, missing } = withPayloadDefaults(workflowWith(variables), given);
        // The reference: a path of the event's payload reads the same after.
        for (const name of ['a', 'b', 'c', 'a.a', 'a.b', 'b.a', 'c.c', 'a.a.a']) {
          if (readPath(given, name) !== undefined && typeof readPath(given, name) !== 'object') expect(readPath(filled, name)).toEqual(readPath(given, name));
        }
        for (const v of variables) {
          const after = readPath(filled, v.name);
          if (readPath(given, v.name) !== undefined) continue;
          if (after === undefined) expect(v.defaultValue === undefined || blocked(filled, v.name)).toBe(true);
          if (v.required && after === undefined) expect(missing).toContain(v.name);
        }
        expect(given).toEqual(JSON.parse(JSON.stringify(given)));
      }),
    );
  });

  it('trigger-event.e2e “should fill trigger payload with default variables”: the engine renders the default; a required one left out is an error naming it', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert({
      name: 'v',
      triggers: [{ identifier: 'v' }],
      steps: [{ template: { type: 'in_app', content: 'Hello {{ payload.myUser.lastName }}, Welcome to {{ payload.organizationName }}', variables: [{ name: 'myUser.lastName', defaultValue: 'John Doe' }, { name: 'organizationName', required: true }] } }],
    });
    expect((await tidings.trigger({ name: 'v', to: 'ada', payload: { organizationName: 'Umbrella Corp' } })).status).toBe('processed');
    await tidings.runDue();
    expect((await tidings.messages.feed('ada')).items[0]!.content).toBe('Hello John Doe, Welcome to Umbrella Corp');
    await expect(tidings.trigger({ name: 'v', to: 'ada', payload: {} })).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'payload.organizationName', message: 'is required by the workflow' }] });
  });
});

/** True when a step on the way to `name` is a value that is not an object (the default has nowhere to go). */
function blocked(payload: Record<string, unknown>, name: string): boolean {
  const parts = name.split('.');
  for (let i = 1; i < parts.length; i++) {
    const value = readPath(payload, parts.slice(0, i).join('.'));
    if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) return true;
  }
  return false;
}
