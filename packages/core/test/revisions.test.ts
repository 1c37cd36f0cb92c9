import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Step, Workflow } from '../src/index.js';
import { canonicalJson, definitionOf, sameDefinition } from '../src/revisions/workflow-definition.js';
import { diffLines, diffWorkflows } from '../src/revisions/workflow-diff.js';
import { planLines, planWorkflows } from '../src/revisions/workflow-plan.js';
import { codeRevision } from '../src/revisions/code-revision.js';
import { workflowFile, workflowFileNames } from '../src/revisions/workflow-file.js';
import { scriptedCodeWorkflow } from '../src/testing/scripted-code-workflow.js';
import { workflowRecord } from '../src/testing/fixtures.js';

const step = (id: string, content: string, type: 'in_app' | 'email' = 'in_app'): Step => ({ _id: id, active: true, shouldStopOnFail: false, filters: [], variants: [], template: { type, content } });
const wf = (identifier: string, steps: Step[], extra: Partial<Workflow> = {}): Workflow => workflowRecord('env', { _id: `id-${identifier}`, identifier, steps, ...extra });

describe('workflow definitions', () => {
  it('bookkeeping (instants, revision, environment) is no change; anything else is', () => {
    const a = wf('a', [step('s1', 'hi')]);
    expect(sameDefinition(a, { ...a, updatedAt: '2030-01-01T00:00:00.000Z', revision: 7, _environmentId: 'prod' })).toBe(true);
    expect(sameDefinition(a, { ...a, description: 'new' })).toBe(false);
    expect(definitionOf({ ...a, revision: 3 })).not.toHaveProperty('revision');
  });

  it('canonical JSON does not depend on member order, and tells different values apart', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(object));
        expect(JSON.parse(canonicalJson(object))).toEqual(JSON.parse(JSON.stringify(object)));
      }),
    );
  });
});

describe('diffWorkflows', () => {
  it('matches steps by id: an edit is a member change, an insertion before a step is no move, a swap is', () => {
    const before = wf('a', [step('s1', 'one'), step('s2', 'two')]);
    const after = wf('a', [step('s0', 'zero', 'email'), step('s1', 'one!'), step('s2', 'two')], { name: 'Renamed' });
    expect(diffLines(diffWorkflows(before, after))).toEqual([
      '~ name: "Test workflow" → "Renamed"',
      '+ step 1 (email "s0"): added',
      '~ step 2 (in_app "s1") template.content: "one" → "one!"',
    ]);
    const swapped = wf('a', [step('s2', 'two'), step('s1', 'one')]);
    expect(diffLines(diffWorkflows(before, swapped))).toEqual(['~ step 1 (in_app "s2"): moved from position 2', '~ step 2 (in_app "s1"): moved from position 1']);
    expect(diffLines(diffWorkflows(before, wf('a', [step('s2', 'two')])))).toEqual(['- step 1 (in_app "s1"): removed']);
  });

  it('names added and removed members, and cuts long values', () => {
    const before = wf('a', [step('s1', 'x'.repeat(200))]);
    const after = wf('a', [{ ...step('s1', 'y'), fallbackTo: 'sms' }], { runs: 'latest' });
    const lines = diffLines(diffWorkflows(before, after));
    expect(lines).toContain('+ runs: "latest"');
    expect(lines).toContain('+ step 1 (in_app "s1") fallbackTo: "sms"');
    const long = lines.find((l) => l.includes('template.content'))!;
    expect(long.length).toBeLessThan(150);
    expect(diffLines(diffWorkflows(after, before))).toContain('- runs: was "latest"');
  });

  it('a workflow differs from another exactly when the diff has changes (reference: sameDefinition)', () => {
    const contents = fc.constantFrom('a', 'b', 'c');
    const steps = fc.uniqueArray(fc.record({ id: fc.constantFrom('s1', 's2', 's3', 's4'), content: contents }), { selector: (s) => s.id, maxLength: 4 });
    const workflow = fc.record({ steps, name: fc.constantFrom('A', 'B'), critical: fc.boolean() }).map(({ steps, name, critical }) => wf('w', steps.map((s) => step(s.id, s.content)), { name, critical }));
    fc.assert(
      fc.property(workflow, workflow, (a, b) => {
        expect(diffWorkflows(a, b).length === 0).toBe(sameDefinition(a, b));
      }),
    );
  });
});

describe('planWorkflows', () => {
  const stored = [wf('hello', [step('s1', 'one')]), wf('old', [step('s1', 'x')])];
  it('adds, changes with a diff, leaves alone, and removes only with prune', () => {
    const files = [
      { file: 'hello.json', workflow: wf('hello', [step('s1', 'two')]) },
      { file: 'new.json', workflow: wf('new', [step('s1', 'x')]) },
    ];
    const plan = planWorkflows(stored, files, true);
    expect(plan.added).toEqual([{ file: 'new.json', identifier: 'new' }]);
    expect(plan.changed.map((c) => [c.identifier, c.changes.length])).toEqual([['hello', 1]]);
    expect(plan.removed).toEqual([{ identifier: 'old' }]);
    expect(planWorkflows(stored, files, false).removed).toEqual([]);
    expect(planLines(plan)).toEqual([
      '+ new (new.json): added',
      '~ hello (hello.json): changed',
      '    ~ step 1 (in_app "s1") template.content: "one" → "two"',
      '- old: removed',
      '1 to add, 1 to change, 1 to remove, 0 unchanged.',
    ]);
  });

  it('files equal to what is stored plan nothing', () => {
    const plan = planWorkflows(stored, stored.map((w) => ({ file: `${w.identifier}.json`, workflow: { ...w, updatedAt: '2031-01-01T00:00:00.000Z' } })), true);
    expect(planLines(plan)).toEqual(['No changes: 2 workflows as stored.']);
  });
});

describe('codeRevision', () => {
  const declared = (ids: string[]) => scriptedCodeWorkflow('c', ids.map((stepId) => ({ stepId, type: 'in_app' as const, outputs: () => ({ body: stepId }) })));
  it('is the same for the same steps and options, and changes with a step or an option', async () => {
    const a = declared(['one', 'two']);
    const revision = codeRevision(a, await a.discover());
    expect(revision).toMatch(/^code-[0-9a-f]{12}$/);
    expect(codeRevision(declared(['one', 'two']), await a.discover())).toBe(revision);
    const b = declared(['one', 'three']);
    expect(codeRevision(b, await b.discover())).not.toBe(revision);
    expect(codeRevision({ ...a, critical: true }, await a.discover())).not.toBe(revision);
  });
});

describe('workflow files', () => {
  it('leave out what the server makes (ids, instants, a generated slug, the default group) and keep step ids', () => {
    const stored = wf('hello', [{ ...step('s1', 'hi'), _templateId: 's1' }], { slug: 'test-workflow_wf_id-hello', revision: 3 });
    const file = workflowFile(stored);
    expect(Object.keys(file).filter((k) => k.startsWith('_') || ['identifier', 'slug', 'createdAt', 'updatedAt', 'revision', 'deleted'].includes(k))).toEqual([]);
    expect(file['steps']).toEqual([{ _id: 's1', active: true, shouldStopOnFail: false, filters: [], variants: [], template: { type: 'in_app', content: 'hi' } }]);
    expect(workflowFile({ ...stored, slug: 'my-slug', _notificationGroupId: 'ops' })).toMatchObject({ slug: 'my-slug', _notificationGroupId: 'ops' });
  });

  it('are named after identifiers, other characters as _, each name distinct', () => {
    expect(workflowFileNames(['hello', 'a/b', 'a_b', 'A_B', 'x y'])).toEqual(['hello.json', 'a_b.json', 'a_b-2.json', 'A_B-3.json', 'x_y.json']);
  });
});
