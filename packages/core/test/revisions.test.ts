import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Step, Workflow } from '../src/index.js';
import { canonicalJson, definitionOf, WORKFLOW_BOOKKEEPING } from '../src/revisions/definition.js';
import { diffWorkflows } from '../src/revisions/workflow-diff.js';
import { diffLines } from '../src/revisions/record-diff.js';
import { joinPlans, planKind, planLines, type PlannedFile } from '../src/revisions/files-plan.js';
import { codeRevision } from '../src/revisions/code-revision.js';
import { folderFiles, folderKindOf, readFolder, workflowFile, workflowFileNames } from '../src/revisions/folder-files.js';
import { KIND_RULES, sameDefinition as sameAs, WORKFLOW_RULES } from '../src/revisions/kinds.js';
import { scriptedCodeWorkflow } from '../src/testing/scripted-code-workflow.js';
import { workflowRecord } from '../src/testing/fixtures.js';

const step = (id: string, content: string, type: 'in_app' | 'email' = 'in_app'): Step => ({ _id: id, active: true, shouldStopOnFail: false, filters: [], variants: [], template: { type, content } });
const sameDefinition = (a: Workflow, b: Workflow) => sameAs(WORKFLOW_RULES, a, b);
const planWorkflows = (current: Workflow[], files: { file: string; workflow: Workflow }[], prune: boolean) =>
  planKind(WORKFLOW_RULES, current, files.map((f): PlannedFile<Workflow> => ({ file: f.file, value: f.workflow })), prune);
const wf = (identifier: string, steps: Step[], extra: Partial<Workflow> = {}): Workflow => workflowRecord('env', { _id: `id-${identifier}`, identifier, steps, ...extra });

describe('workflow definitions', () => {
  it('bookkeeping (instants, revision, environment) is no change; anything else is', () => {
    const a = wf('a', [step('s1', 'hi')]);
    expect(sameDefinition(a, { ...a, updatedAt: '2030-01-01T00:00:00.000Z', revision: 7, _environmentId: 'prod' })).toBe(true);
    expect(sameDefinition(a, { ...a, description: 'new' })).toBe(false);
    expect(definitionOf({ ...a, revision: 3 }, WORKFLOW_BOOKKEEPING)).not.toHaveProperty('revision');
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
    expect(plan.added).toEqual([{ kind: 'workflows', file: 'new.json', identifier: 'new' }]);
    expect(plan.changed.map((c) => [c.identifier, c.changes.length])).toEqual([['hello', 1]]);
    expect(plan.removed).toEqual([{ kind: 'workflows', identifier: 'old' }]);
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

describe('diffs of text and of the other kinds', () => {
  it('a text of several lines shows the lines that changed, between those both sides share', () => {
    const before = wf('a', [step('s1', '<p>\n  Hello\n  there\n</p>')]);
    const after = wf('a', [step('s1', '<p>\n  Hi\n  there\n  friend\n</p>')]);
    expect(diffLines(diffWorkflows(before, after))).toEqual(['~ step 1 (in_app "s1") template.content: from line 2', '    -   Hello', '    -   there', '    +   Hi', '    +   there', '    +   friend']);
  });

  it('a long hunk is cut after twelve lines, each line at a hundred characters', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i} ${'x'.repeat(i === 0 ? 200 : 0)}`);
    const [head, ...hunk] = diffLines([{ path: 'content', change: 'changed', before: 'a\nb', after: lines.join('\n') }]);
    expect(head).toBe('~ content: from line 1');
    expect(hunk).toHaveLength(13);
    expect(hunk.at(-1)).toBe('    … 20 more lines');
    expect(hunk.every((l) => l.length <= 104)).toBe(true);
  });

  it('layouts, partials and catalogs diff member by member, their bookkeeping aside', () => {
    const layout = { identifier: 'main', name: 'Main', type: 'html' as const, content: '<b>{{ content }}</b>', html: 'x', isDefault: false, revision: 1, createdAt: 'a', updatedAt: 'a' };
    expect(diffLines(KIND_RULES.layouts.diff(layout, { ...layout, isDefault: true, html: 'y', revision: 2, updatedAt: 'b' }))).toEqual(['~ isDefault: false → true']);
    const catalog = { locale: 'de', tenant: null, entries: { welcome: { title: 'Hallo' } }, revision: 1, updatedAt: 'a' };
    expect(diffLines(KIND_RULES.translations.diff(catalog, { ...catalog, entries: { welcome: { title: 'Willkommen', body: 'Schön' } } }))).toEqual([
      '+ entries.welcome.body: "Schön"',
      '~ entries.welcome.title: "Hallo" → "Willkommen"',
    ]);
  });
});

describe('plans of several kinds', () => {
  it('name each kind after its noun, workflows alone by identifier; an empty plan counts what it left as stored', () => {
    const partial = (identifier: string, content: string) => ({ identifier, content, revision: 1, updatedAt: 'a' });
    const plan = joinPlans([
      planKind(WORKFLOW_RULES, [], [{ file: 'hello.json', value: wf('hello', [step('s1', 'hi')]) }], false),
      planKind(KIND_RULES.partials, [partial('button', 'a'), partial('old', 'x')], [{ file: 'partials/button.html', value: partial('button', 'b') }], true),
    ]);
    expect(planLines(plan)).toEqual(['+ hello (hello.json): added', '~ partial button (partials/button.html): changed', '    ~ content: "a" → "b"', '- partial old: removed', '1 to add, 1 to change, 1 to remove, 0 unchanged.']);
    const same = joinPlans([planKind(WORKFLOW_RULES, [], [], false), planKind(KIND_RULES.partials, [partial('a', 'a')], [{ file: 'partials/a.html', value: partial('a', 'a') }], false)]);
    expect(planLines(same)).toEqual(['No changes: 0 workflows and 1 partial as stored.']);
  });
});

describe('folders', () => {
  const layout = { identifier: 'main', name: 'Main', type: 'mjml' as const, content: '<mjml>{{ content }}</mjml>', html: '<html>', isDefault: true, revision: 3, createdAt: 'a', updatedAt: 'b' };
  const stored = {
    workflows: [wf('hello', [step('s1', 'hi')])],
    layouts: [layout],
    partials: [{ identifier: 'button', content: '<a>{{ label }}</a>', revision: 1, updatedAt: 'a' }],
    catalogs: [
      { locale: 'de', tenant: null, entries: { hi: 'Hallo' }, revision: 1, updatedAt: 'a' },
      { locale: 'fr', tenant: '../acme co', entries: { hi: 'Salut' }, revision: 1, updatedAt: 'a' },
    ],
  };

  it('export each kind where the folder keeps it, a layout as its members and its content, a tenant\'s name encoded so it stays one folder', () => {
    const files = folderFiles(stored);
    expect(files.map((f) => f.file)).toEqual(['hello.json', 'layouts/main.json', 'layouts/main.mjml', 'partials/button.html', 'translations/de.json', 'translations/..%2Facme%20co/fr.json']);
    expect(files.map((f) => folderKindOf(f.file))).toEqual(['workflows', 'layouts', 'layouts', 'partials', 'translations', 'translations']);
    expect(JSON.parse(files[1]!.text)).toEqual({ name: 'Main', isDefault: true });
    expect(files[2]!.text).toBe(layout.content);
    expect(folderFiles({ ...stored, workflows: [], layouts: [], partials: [], catalogs: [{ ...stored.catalogs[0]!, tenant: '..' }] })[0]!.file).toBe('translations/%2E%2E/de.json');
  });

  it('read back as the inputs each kind\'s upsert takes, issues named at their place in the files', () => {
    const { inputs, issues } = readFolder(folderFiles(stored));
    expect(issues).toEqual([]);
    expect(inputs.map((i) => [i.kind, i.file])).toEqual([
      ['workflows', 'hello.json'],
      ['partials', 'partials/button.html'],
      ['translations', 'translations/de.json'],
      ['translations', 'translations/..%2Facme%20co/fr.json'],
      ['layouts', 'layouts/main.mjml'],
    ]);
    expect(inputs[4]!.input).toEqual({ identifier: 'main', name: 'Main', isDefault: true, content: layout.content, type: 'mjml' });
    expect(inputs[3]!.input).toEqual({ locale: 'fr', tenant: '../acme co', entries: { hi: 'Salut' } });
    expect([inputs[4]!.place('content'), inputs[4]!.place('isDefault'), inputs[2]!.place('entries.hi'), inputs[2]!.place('locale')]).toEqual([
      'layouts/main.mjml:content',
      'layouts/main.json:isDefault',
      'translations/de.json:hi',
      'translations/de.json:locale',
    ]);
  });

  it('refuse what no kind is, what is not JSON, a layout\'s content given twice and a file naming another identifier', () => {
    const files: [string, string][] = [
      ['notes.txt', 'x'],
      ['bad.json', '{ "name": '],
      ['layouts/a.html', '{{ content }}'],
      ['layouts/a.mjml', '<mjml>{{ content }}</mjml>'],
      ['layouts/b.json', '{ "identifier": "c", "content": "{{ content }}" }'],
      ['layouts/b.html', '{{ content }}'],
      ['layouts/c.json', '[1]'],
      ['partials/%zz.html', ''],
    ];
    const { inputs, issues } = readFolder(files.map(([file, text]) => ({ file, text })));
    expect(issues.map((i) => i.path)).toEqual(['notes.txt', 'bad.json', 'layouts/a.mjml', 'partials/%zz.html', 'layouts/b.json:identifier', 'layouts/b.json:content', 'layouts/c.json']);
    expect(issues[1]!.message).toMatch(/^is not JSON: /);
    expect(inputs.map((i) => i.file)).toEqual(['layouts/a.html', 'layouts/b.html']);
  });
});
