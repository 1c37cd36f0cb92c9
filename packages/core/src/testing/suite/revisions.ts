import { describe, expect, it } from 'vitest';
import { manualClock, type ManualClock } from '../../clock.js';
import { ProviderError, type Provider, type ProviderMessage } from '../../delivery/provider.js';
import { createTidings, type TidingsOptions } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { WorkflowInput } from '../../schemas/index.js';
import type { CodeWorkflow } from '../../walk/code-workflow.js';
import { scriptedCodeWorkflow, type ScriptedStep } from '../scripted-code-workflow.js';
import type { SuiteContext } from '../storage-under-test.js';

const T0 = '2026-07-01T09:00:00.000Z';
const MINUTE = 60_000;

/** A workflow of an in-app step, a one-minute delay and a second in-app step. */
const delayed = (identifier: string, second: string, extra: Partial<WorkflowInput> = {}): WorkflowInput => ({
  name: identifier,
  triggers: [{ identifier }],
  steps: [
    { template: { type: 'in_app', content: `${identifier}: first` } },
    { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } },
    { template: { type: 'in_app', content: second } },
  ],
  ...extra,
});

const refusal = async (call: () => Promise<unknown>) => call().then(() => null, (error: unknown) => error);

/** Revisions, pinned runs and workflows as files, on every backend. */
export function revisionsSuite({ get }: SuiteContext): void {
  describe('workflow revisions over this storage', () => {
    function engine(environmentId: string, clock: ManualClock = manualClock(T0), options: Partial<TidingsOptions> = {}) {
      return { tidings: createTidings({ storage: get(), clock, environmentId, ...options }), clock };
    }
    const inbox = async (tidings: ReturnType<typeof engine>['tidings'], subscriberId: string) =>
      (await tidings.messages.feed(subscriberId, { limit: 100 })).items.map((m) => m.content as string).sort();

    it('revisions — each change stores one with who and when, an unchanged upsert (step ids left out) stores none, history is newest first and outlives a deletion', async () => {
      const { tidings, clock } = engine('rev-history');
      const first = await tidings.workflows.upsert(delayed('hello', 'v1'));
      expect(first.revision).toBe(1);
      clock.advance(MINUTE);
      const again = await tidings.workflows.upsert(delayed('hello', 'v1'));
      expect(again).toEqual(first);
      const second = await tidings.workflows.upsert(delayed('hello', 'v2'), { by: 'ops@example.com' });
      expect(second.revision).toBe(2);
      expect(second.steps.map((s) => s._id)).toEqual(first.steps.map((s) => s._id));
      const history = await tidings.workflows.history('hello');
      expect(history.map((r) => [r.revision, r.by, r.at])).toEqual([
        [2, 'ops@example.com', '2026-07-01T09:01:00.000Z'],
        [1, 'code', T0],
      ]);
      expect((await tidings.workflows.revision('hello', 1))?.workflow.steps[2]?.template.content).toBe('v1');
      expect(await tidings.workflows.revision('hello', 3)).toBeNull();
      // An independent read: two immutable records, one per change.
      const raw = await get().records.find('rev-history', 'workflow_revisions', { i1: first._id });
      expect(raw.map((r) => (r.doc as { revision: number }).revision)).toEqual([1, 2]);

      await tidings.workflows.delete('hello');
      expect((await tidings.workflows.history('hello')).map((r) => r.revision)).toEqual([2, 1]);
      expect(await tidings.workflows.history('hello', { limit: 1 })).toHaveLength(1);
    });

    it('revisions — bad input names its field and changes nothing; an unknown workflow or revision is not_found', async () => {
      const { tidings } = engine('rev-refusals');
      await tidings.workflows.upsert(delayed('hello', 'v1'));
      for (const [call, path] of [
        [() => tidings.workflows.history('hello', { limit: 0 }), 'limit'],
        [() => tidings.workflows.revision('hello', 1.5), 'revision'],
        [() => tidings.workflows.diff('hello', 1, 0), 'to'],
        [() => tidings.workflows.upsert(delayed('hello', 'v2'), { by: '' }), 'by'],
        [() => tidings.workflows.upsert(delayed('hello', 'v2', { runs: 'sometimes' as never })), 'runs'],
        [() => tidings.workflows.rollback('hello', 1, { who: 'x' } as never), 'who'],
      ] as const) {
        const error = await refusal(call);
        expect(isTidingsError(error, 'validation_failed'), String(error)).toBe(true);
        expect((error as { issues: { path: string }[] }).issues[0]!.path).toBe(path);
      }
      for (const call of [() => tidings.workflows.history('nobody'), () => tidings.workflows.diff('hello', 1, 7), () => tidings.workflows.rollback('hello', 9)]) {
        expect(isTidingsError(await refusal(call), 'not_found')).toBe(true);
      }
      expect((await tidings.workflows.history('hello')).map((r) => r.revision)).toEqual([1]);
    });

    it('revisions — diff names each step\'s change; rollback stores a new revision equal to the old one, and one to the current revision changes nothing', async () => {
      const { tidings } = engine('rev-rollback');
      await tidings.workflows.upsert(delayed('hello', 'v1'));
      const edited = delayed('hello', 'v2', { description: 'edited' });
      await tidings.workflows.upsert({ ...edited, steps: [...edited.steps!, { template: { type: 'in_app', content: 'extra' } }] });
      const diff = await tidings.workflows.diff('hello', 1, 2);
      expect(diff.changes.map((c) => [c.path.replace(/\[[^\]]+\]/, '[*]'), c.change])).toEqual([
        ['description', 'changed'],
        ['steps[*].template.content', 'changed'],
        ['steps[*]', 'added'],
      ]);
      expect(diff.lines).toContain('~ description: "" → "edited"');
      expect(diff.lines.some((l) => l.startsWith('~ step 3 (in_app') && l.endsWith('template.content: "v1" → "v2"'))).toBe(true);

      const restored = await tidings.workflows.rollback('hello', 1, { by: 'oncall' });
      expect(restored.revision).toBe(3);
      expect(restored.steps.map((s) => s.template.content)).toEqual(['hello: first', undefined, 'v1']);
      const [latest] = await tidings.workflows.history('hello');
      expect(latest).toMatchObject({ revision: 3, by: 'oncall', restores: 1 });
      expect((await tidings.workflows.diff('hello', 1, 3)).changes).toEqual([]);
      expect((await tidings.workflows.rollback('hello', 3)).revision).toBe(3);
      expect(await tidings.workflows.history('hello')).toHaveLength(3);
    });

    it('pinned runs — a delayed run keeps the revision it was triggered with across an edit and a process restart; explain names it; a new trigger takes the edit', async () => {
      const { tidings, clock } = engine('rev-pinned');
      await tidings.workflows.upsert(delayed('hello', 'second v1'));
      const { transactionId } = await tidings.trigger({ name: 'hello', to: 'ada' });
      await tidings.runDue();
      await tidings.workflows.upsert(delayed('hello', 'second v2'));
      expect((await tidings.activity.notification(transactionId!))?.revision).toBe(1);

      // A new process over the same storage, after the delay.
      const restarted = engine('rev-pinned', clock).tidings;
      clock.advance(2 * MINUTE);
      await restarted.runDue();
      expect(await inbox(restarted, 'ada')).toEqual(['hello: first', 'second v1']);
      const records = await restarted.explain(transactionId!, 'ada');
      expect(records.map((r) => r.revision)).toEqual([1, 1]);

      const next = await restarted.trigger({ name: 'hello', to: 'bob' });
      await restarted.runDue();
      clock.advance(2 * MINUTE);
      await restarted.runDue();
      expect(await inbox(restarted, 'bob')).toEqual(['hello: first', 'second v2']);
      expect((await restarted.explain(next.transactionId!, 'bob')).map((r) => r.revision)).toEqual([2, 2]);
    });

    it("pinned runs — runs: 'latest' makes a pending run take the edit", async () => {
      const { tidings, clock } = engine('rev-latest');
      await tidings.workflows.upsert(delayed('hello', 'second v1', { runs: 'latest' }));
      const { transactionId } = await tidings.trigger({ name: 'hello', to: 'ada' });
      await tidings.runDue();
      await tidings.workflows.upsert(delayed('hello', 'second v2', { runs: 'latest' }));
      clock.advance(2 * MINUTE);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['hello: first', 'second v2']);
      expect((await tidings.explain(transactionId!, 'ada')).map((r) => r.revision)).toEqual([1, 2]);
    });

    it('pinned runs — a provider retry sends the revision the run started with', async () => {
      const sent: ProviderMessage[] = [];
      let calls = 0;
      const mail: Provider = {
        id: 'mailer',
        channel: 'email',
        send: async (message) => {
          if (++calls === 1) throw new ProviderError('busy', { retryable: true, status: 503, retryAfterMs: 5_000 });
          sent.push(message);
          return { id: `pm-${calls}` };
        },
      };
      const { tidings, clock } = engine('rev-retry', manualClock(T0), { providers: [mail] });
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      const mailWorkflow = (subject: string): WorkflowInput => ({ name: 'receipt', triggers: [{ identifier: 'receipt' }], steps: [{ template: { type: 'email', subject, content: '<p>thanks</p>' } }] });
      await tidings.workflows.upsert(mailWorkflow('Receipt v1'));
      await tidings.trigger({ name: 'receipt', to: { subscriberId: 'ada', email: 'ada@example.test' } });
      await tidings.runDue();
      expect(sent).toEqual([]);
      await tidings.workflows.upsert(mailWorkflow('Receipt v2'));
      clock.advance(MINUTE);
      await tidings.runDue();
      expect(sent.map((m) => m.subject)).toEqual(['Receipt v1']);
    });

    it('code workflows — the revision is a hash of the discovered steps and options; a run whose next step a deploy removed ends with the reason in explain, one whose next step remains goes on', async () => {
      const steps = (last: string, name?: string): CodeWorkflow => {
        const list: ScriptedStep[] = [
          { stepId: 'note', type: 'in_app', outputs: () => ({ body: 'first' }) },
          { stepId: 'wait', type: 'delay', outputs: () => ({ amount: 1, unit: 'minutes' }) },
          { stepId: last, type: 'in_app', outputs: () => ({ body: last }) },
        ];
        return { ...scriptedCodeWorkflow('coded', list), ...(name !== undefined && { name }) };
      };
      const clock = manualClock(T0);
      const before = engine('rev-code', clock, { workflows: [steps('second')] }).tidings;
      const revision = (await before.workflows.get('coded'))!.revision;
      expect(revision).toMatch(/^code-[0-9a-f]{12}$/);
      expect((await engine('rev-code', clock, { workflows: [steps('second')] }).tidings.workflows.get('coded'))!.revision).toBe(revision);
      const gone = await before.trigger({ name: 'coded', to: 'ada' });
      const kept = await before.trigger({ name: 'coded', to: 'bob' });
      await before.runDue();

      // A deploy renames the step after the delay; another keeps it and changes an option only.
      const renamed = engine('rev-code', clock, { workflows: [steps('renamed')] }).tidings;
      expect((await renamed.workflows.get('coded'))!.revision).not.toBe(revision);
      clock.advance(2 * MINUTE);
      // Only Ada's run: Bob's waits for the other deploy.
      await renamed.cancel(kept.transactionId!);
      await renamed.runDue();
      expect(await inbox(renamed, 'ada')).toEqual(['first']);
      const last = (await renamed.explain(gone.transactionId!, 'ada')).at(-1)!;
      expect(last.entries).toEqual([expect.objectContaining({ stepId: 'second', decision: 'skipped', reason: expect.stringContaining('its next step "second" no longer exists: the run ends here') })]);

      const third = await before.trigger({ name: 'coded', to: 'cy' });
      await before.runDue();
      const relabelled = engine('rev-code', clock, { workflows: [steps('second', 'Coded, renamed')] }).tidings;
      expect((await relabelled.workflows.get('coded'))!.revision).not.toBe(revision);
      clock.advance(2 * MINUTE);
      await relabelled.runDue();
      expect(await inbox(relabelled, 'cy')).toEqual(['first', 'second']);
      expect((await relabelled.explain(third.transactionId!, 'cy')).map((r) => r.revision)).toEqual([revision, (await relabelled.workflows.get('coded'))!.revision]);
    });

    it('workflow files — a plan changes nothing; apply stores every file in one go and a second apply is a no-op; prune removes the others; code workflows are never touched', async () => {
      const { tidings } = engine('rev-files', manualClock(T0), { workflows: [scriptedCodeWorkflow('coded', [{ stepId: 'n', type: 'in_app', outputs: () => ({ body: 'x' }) }])] });
      await tidings.workflows.upsert(delayed('old', 'old'));
      await tidings.workflows.upsert(delayed('hello', 'v1'));
      const files = [
        { file: 'hello.json', workflow: delayed('hello', 'v2') },
        { file: 'welcome.json', workflow: delayed('welcome', 'hi') },
      ];
      const plan = await tidings.workflows.plan({ files, prune: true });
      expect(plan.applied).toBe(false);
      expect(plan.plan).toMatchObject({ added: [{ identifier: 'welcome' }], changed: [{ identifier: 'hello', file: 'hello.json' }], removed: [{ identifier: 'old' }] });
      expect(plan.lines.at(-1)).toBe('1 to add, 1 to change, 1 to remove, 0 unchanged.');
      expect(await tidings.workflows.get('welcome')).toBeNull();

      const applied = await tidings.workflows.apply({ files, prune: true, by: 'deploy' });
      expect(applied.applied).toBe(true);
      expect(await tidings.workflows.get('old')).toBeNull();
      expect((await tidings.workflows.get('hello'))?.revision).toBe(2);
      expect((await tidings.workflows.history('welcome'))[0]).toMatchObject({ revision: 1, by: 'deploy' });
      const again = await tidings.workflows.apply({ files, prune: true });
      expect(again.applied).toBe(false);
      expect(again.lines).toEqual(['No changes: 2 workflows as stored.']);
      expect((await tidings.workflows.history('hello')).map((r) => r.revision)).toEqual([2, 1]);
      expect((await tidings.workflows.list()).map((w) => w.identifier).sort()).toEqual(['coded', 'hello', 'welcome']);

      // Exported files apply back as a no-op here, and promote to another environment as equal workflows.
      const exported = await tidings.workflows.exportFiles();
      expect(exported.map((f) => f.file)).toEqual(['hello.json', 'welcome.json']);
      expect(exported[0]!.workflow).not.toHaveProperty('_id');
      expect((await tidings.workflows.apply({ files: exported })).applied).toBe(false);
      const production = engine('rev-files-production').tidings;
      expect((await production.workflows.apply({ files: exported })).plan.added).toHaveLength(2);
      expect((await production.workflows.plan({ files: exported })).lines).toEqual(['No changes: 2 workflows as stored.']);
      const [here, there] = [await tidings.workflows.get('hello'), await production.workflows.get('hello')];
      expect(there!.steps).toEqual(here!.steps);
      expect(there!._environmentId).toBe('rev-files-production');
    });

    it('workflow files — one bad file (a bad filter, an unknown step type, a code workflow\'s id) refuses the whole apply, naming the file and the field', async () => {
      const { tidings } = engine('rev-bad-files', manualClock(T0), { workflows: [scriptedCodeWorkflow('coded', [{ stepId: 'n', type: 'in_app', outputs: () => ({ body: 'x' }) }])] });
      const good = { file: 'good.json', workflow: delayed('good', 'fine') };
      const cases: [unknown, string][] = [
        [{ ...delayed('bad', 'x'), steps: [{ template: { type: 'in_app', content: 'x' }, filters: [{ isNegated: false, type: 'GROUP', value: 'AND', children: [{ on: 'payload', field: 'a', value: '1', operator: 'SOMETIMES' }] }] }] }, 'bad.json:steps[0].filters[0].children[0].operator'],
        [{ ...delayed('bad', 'x'), steps: [{ template: { type: 'carrier_pigeon' } }] }, 'bad.json:steps[0].template.type'],
        [delayed('coded', 'x'), 'bad.json:triggers[0].identifier'],
      ];
      for (const [workflow, path] of cases) {
        const error = await refusal(() => tidings.workflows.apply({ files: [good, { file: 'bad.json', workflow }] }));
        expect(isTidingsError(error, 'validation_failed'), String(error)).toBe(true);
        expect((error as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(path);
        expect((error as Error).message).toContain('bad.json');
      }
      expect(await tidings.workflows.get('good')).toBeNull();
      expect(await tidings.workflows.get('bad')).toBeNull();
    });
  });
}
