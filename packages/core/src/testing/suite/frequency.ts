import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings, type TidingsOptions } from '../../engine/create-tidings.js';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, plus } from '../fixtures.js';
import { scriptedCodeWorkflow } from '../scripted-code-workflow.js';
import type { ThrottleMetadata } from '../../schemas/index.js';

const HOUR = 3_600_000;

/** A workflow of a throttle step then an in-app message. */
const throttled = (metadata: Record<string, unknown>) => ({
  name: 'Comment',
  triggers: [{ identifier: 'comment' }],
  steps: [{ template: { type: 'throttle' as const }, metadata: metadata as ThrottleMetadata }, { template: { type: 'in_app' as const, content: 'New comment on {{ payload.project }}' } }],
});

export function frequencySuite({ get }: SuiteContext): void {
  describe('frequency', () => {
    const engine = (options: Partial<TidingsOptions> = {}) => {
      const clock = manualClock(T0);
      return { clock, tidings: createTidings({ storage: get(), clock, environmentId: 'env-a', ...options }) };
    };
    const inbox = async (tidings: ReturnType<typeof createTidings>, subscriberId: string) => (await tidings.messages.feed(subscriberId, { limit: 100 })).items.map((m) => m.content).sort();

    it('window hits — recorded once per (key, id), read after an instant oldest first, pruned once expired', async () => {
      const s = get();
      const hit = (key: string, id: string, at: string) => ({ key, id, at, expiresAt: plus(at, HOUR) });
      await s.frequency.record('env-a', [hit('k', 'a', plus(T0, 2)), hit('k', 'b', plus(T0, 1)), hit('other', 'a', T0)]);
      await s.frequency.record('env-a', [hit('k', 'a', plus(T0, 5))]);
      await s.frequency.record('env-b', [hit('k', 'c', T0)]);
      expect(await s.frequency.recent('env-a', ['k', 'other', 'none'], plus(T0, -1))).toEqual(new Map([['k', [plus(T0, 1), plus(T0, 2)]], ['other', [T0]]]));
      expect(await s.frequency.recent('env-a', ['k'], plus(T0, 1))).toEqual(new Map([['k', [plus(T0, 2)]]]));
      expect(await s.frequency.prune('env-a', ['k'], plus(T0, HOUR + 2))).toBe(2);
      expect(await s.frequency.recent('env-a', ['k', 'other'], plus(T0, -1))).toEqual(new Map([['other', [T0]]]));
      expect((await s.frequency.recent('env-b', ['k'], plus(T0, -1))).get('k')).toEqual([T0]);
      expect(await s.settings.get('env-a', 'caps')).toBeNull();
      await s.settings.put('env-a', 'caps', [{ limit: 1 }]);
      await s.settings.put('env-a', 'caps', [{ limit: 2 }]);
      expect(await s.settings.get('env-a', 'caps')).toEqual([{ limit: 2 }]);
      expect(await s.settings.get('env-b', 'caps')).toBeNull();
    });

    it('window hits — forget deletes hits by (key, id), expired or not, in one environment only', async () => {
      const s = get();
      const hit = (key: string, id: string) => ({ key, id, at: T0, expiresAt: plus(T0, HOUR) });
      await s.frequency.record('env-a', [hit('k', 'a'), hit('k', 'b'), hit('j', 'a')]);
      await s.frequency.record('env-b', [hit('k', 'a')]);
      expect(await s.frequency.forget('env-a', [{ key: 'k', id: 'a' }, { key: 'k', id: 'none' }])).toBe(1);
      expect(await s.frequency.recent('env-a', ['k', 'j'], plus(T0, -1))).toEqual(new Map([['k', [T0]], ['j', [T0]]]));
      expect((await s.frequency.recent('env-b', ['k'], plus(T0, -1))).get('k')).toEqual([T0]);
      expect(await s.frequency.forget('env-a', [])).toBe(0);
    });

    it('throttle — at most `limit` runs per subscriber in a sliding window; the rest end at the step, explained with the count', async () => {
      const { tidings, clock } = engine();
      await tidings.workflows.upsert(throttled({ amount: 1, unit: 'hours', limit: 2 }));
      const results = await tidings.triggerBulk([1, 2, 3].map((n) => ({ name: 'comment', to: 'ada', payload: { project: `p${n}` } })));
      await tidings.trigger({ name: 'comment', to: 'bob', payload: { project: 'p9' } });
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['New comment on p1', 'New comment on p2']);
      expect(await inbox(tidings, 'bob')).toEqual(['New comment on p9']);
      const [record] = await tidings.explain(results[2]!.transactionId!, 'ada');
      expect(record!.entries).toEqual([expect.objectContaining({ type: 'throttle', decision: 'throttled', reason: expect.stringMatching(/^throttled: 2 of 2 runs already in the last 1 hour/) })]);
      expect((await tidings.explain(results[0]!.transactionId!, 'ada')).flatMap((r) => r.entries.map((e) => e.decision))).toEqual(['ran', 'delivered']);
      // The window slides: an hour after the first two, there is room again.
      clock.advance(HOUR - 1);
      await tidings.trigger({ name: 'comment', to: 'ada', payload: { project: 'p4' } });
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toHaveLength(2);
      clock.advance(1);
      await tidings.trigger({ name: 'comment', to: 'ada', payload: { project: 'p5' } });
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['New comment on p1', 'New comment on p2', 'New comment on p5']);
    });

    it('throttle — `key` counts each value of a payload path apart', async () => {
      const { tidings } = engine();
      await tidings.workflows.upsert(throttled({ amount: 10, unit: 'minutes', limit: 1, key: 'project' }));
      await tidings.triggerBulk(['a', 'b', 'a', 'b', 'c'].map((project) => ({ name: 'comment', to: 'ada', payload: { project } })));
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['New comment on a', 'New comment on b', 'New comment on c']);
    });

    it('throttle — runs racing through two workers are counted exactly: 200 triggers against a limit of 5 let 5 through', async () => {
      const { tidings, clock } = engine({ batchSize: 25 });
      const second = createTidings({ storage: get(), clock, environmentId: 'env-a', batchSize: 25 });
      await tidings.workflows.upsert(throttled({ amount: 1, unit: 'days', limit: 5 }));
      await Promise.all(Array.from({ length: 2 }, (_, call) => tidings.triggerBulk(Array.from({ length: 100 }, (_, i) => ({ name: 'comment', to: 'ada', payload: { project: `${call}-${i}` } })))));
      await Promise.all([tidings.runDue(), second.runDue(), tidings.runDue()]);
      expect(await inbox(tidings, 'ada')).toHaveLength(5);
      expect((await tidings.messages.counts('ada')).total).toBe(5);
    });

    it('throttle — a code workflow’s step in @novu/framework’s shape returns { throttled: false, executionCount, threshold } to the steps after it', async () => {
      const seen: unknown[] = [];
      const code = scriptedCodeWorkflow('code-comment', [
        { stepId: 'limit', type: 'throttle', outputs: () => ({ type: 'fixed', amount: 1, unit: 'hours', threshold: 2 }) },
        {
          stepId: 'note',
          type: 'in_app',
          outputs: (_payload, results) => {
            seen.push(results.get('limit'));
            return { body: `count ${String(results.get('limit')?.['executionCount'])}` };
          },
        },
      ]);
      const { tidings } = engine({ workflows: [code] });
      await tidings.triggerBulk([1, 2, 3].map(() => ({ name: 'code-comment', to: 'ada' })));
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['count 1', 'count 2']);
      expect(seen[0]).toMatchObject({ throttled: false, executionCount: 1, threshold: 2 });
    });

    const tagged = (identifier: string, tags: string[], channel: 'in_app' | 'email' = 'in_app', critical = false) => ({
      name: identifier,
      triggers: [{ identifier }],
      tags,
      critical,
      steps: [channel === 'in_app' ? { template: { type: 'in_app' as const, content: identifier } } : { template: { type: 'email' as const, subject: identifier, content: identifier } }],
    });

    it('caps — at most `limit` messages per subscriber across workflows with the tags; over it a message is not sent, named in explain; critical workflows and untagged ones pass', async () => {
      const { tidings, clock } = engine({ caps: [{ id: 'marketing', tags: ['marketing'], limit: 2, per: { amount: 1, unit: 'days' } }] });
      for (const [id, tags, critical] of [['promo', ['marketing'], false], ['news', ['marketing', 'weekly'], false], ['alert', ['marketing'], true], ['receipt', [], false]] as const) {
        await tidings.workflows.upsert(tagged(id, [...tags], 'in_app', critical));
      }
      const results = await tidings.triggerBulk(['promo', 'news', 'promo', 'alert', 'receipt'].map((name) => ({ name, to: 'ada' })));
      await tidings.trigger({ name: 'promo', to: 'bob' });
      await tidings.runDue();
      // Two of the three marketing messages go, whichever of the batch's concurrent sends took the slots
      // first (each takes its slot in a transaction of its own); the critical and the untagged pass.
      const adas = await inbox(tidings, 'ada');
      expect(adas.filter((m) => m === 'promo' || m === 'news')).toHaveLength(2);
      expect(adas.filter((m) => m === 'alert' || m === 'receipt')).toEqual(['alert', 'receipt']);
      expect(await inbox(tidings, 'bob')).toEqual(['promo']);
      const marketing = [results[0]!, results[1]!, results[2]!];
      const records = (await Promise.all(marketing.map((r) => tidings.explain(r.transactionId!, 'ada')))).map(([record]) => record!.entries[0]!);
      expect(records.filter((e) => e.decision === 'skipped')).toEqual([expect.objectContaining({ reason: 'over the cap "marketing": 2 of 2 in the last 1 day; not sent' })]);
      clock.advance(86_400_000);
      await tidings.trigger({ name: 'promo', to: 'ada' });
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toHaveLength(5);
    });

    it('caps — `defer` holds a message until the window has room; an email over a `skip` cap is a warning; caps set over the API are stored and apply with those in code', async () => {
      const sent: string[] = [];
      const provider = { id: 'sendgrid', channel: 'email' as const, send: async (message: { subject?: string }) => (sent.push(message.subject ?? ''), { id: `sg-${sent.length}` }) };
      const { tidings, clock } = engine({ providers: [provider], caps: [{ id: 'email', channel: 'email', limit: 1, per: { amount: 1, unit: 'hours' }, mode: 'defer' }] });
      await tidings.integrations.upsert({ providerId: 'sendgrid', channel: 'email', credentials: { apiKey: 'k', from: 'a@b.c' }, active: true });
      await tidings.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com' });
      await tidings.workflows.upsert(tagged('digest-mail', [], 'email'));
      await tidings.triggerBulk([1, 2].map(() => ({ name: 'digest-mail', to: 'ada' })));
      await tidings.runDue();
      expect(sent).toEqual(['digest-mail']);
      expect((await tidings.pending({ subscriberId: 'ada' })).jobs).toEqual([expect.objectContaining({ runAt: plus(T0, 3_600_000), stepIndex: 0 })]);
      clock.advance(3_600_000);
      await tidings.runDue();
      expect(sent).toEqual(['digest-mail', 'digest-mail']);
      // A stored cap (skip) over every channel, set over the API, counts the sends from then on: past it, an email is a warning.
      await tidings.caps.set([{ id: 'daily', limit: 1, per: { amount: 1, unit: 'days' } }]);
      expect((await tidings.caps.get()).stored).toEqual([expect.objectContaining({ id: 'daily', limit: 1, mode: 'skip' })]);
      clock.advance(3_600_000);
      await tidings.trigger({ name: 'digest-mail', to: 'ada' });
      await tidings.runDue();
      clock.advance(3_600_000);
      const over = await tidings.trigger({ name: 'digest-mail', to: 'ada' });
      await tidings.runDue();
      expect(sent).toHaveLength(3);
      const [message] = await tidings.messages.byTransaction(over.transactionId!);
      expect(message).toMatchObject({ status: 'warning', errorText: 'over the cap "daily": 1 of 1 in the last 1 day; not sent' });
      await expect(tidings.caps.set([{ id: 'email', limit: 1, per: { amount: 1, unit: 'days' } }])).rejects.toThrow(/\[0\]\.id: .*createTidings/);
      await expect(tidings.caps.set([{ limit: 0, per: { amount: 1, unit: 'days' } }])).rejects.toThrow(/\[0\]\.limit/);
      expect((await tidings.caps.get()).stored).toHaveLength(1);
    });

    it('send rate — an integration’s rateLimit is shared by every worker: sends past it wait for room instead of failing at the provider', async () => {
      const sent: string[] = [];
      const provider = { id: 'sendgrid', channel: 'email' as const, send: async (message: { to: { email?: string } }) => (sent.push(message.to.email ?? ''), { id: `sg-${sent.length}` }) };
      const { tidings, clock } = engine({ providers: [provider], batchSize: 2 });
      const second = createTidings({ storage: get(), clock, environmentId: 'env-a', providers: [provider], batchSize: 2 });
      const integration = await tidings.integrations.upsert({ providerId: 'sendgrid', channel: 'email', credentials: { apiKey: 'k', from: 'a@b.c' }, active: true, rateLimit: { messages: 2, seconds: 60 } });
      await tidings.workflows.upsert(tagged('mail', [], 'email'));
      await tidings.triggerBulk(['a', 'b', 'c', 'd', 'e'].map((id) => ({ name: 'mail', to: { subscriberId: id, email: `${id}@example.com` } })));
      await Promise.all([tidings.runDue(), second.runDue()]);
      expect(sent).toHaveLength(2);
      // The sweep (subscriberId '') prunes the window's hits later; the sends wait.
      const waiting = (await tidings.pending()).jobs.filter((j) => j.subscriberId !== '');
      expect(waiting.map((j) => [j.runAt, j.attempts > 1])).toEqual([[plus(T0, 60_000), false], [plus(T0, 60_000), false], [plus(T0, 60_000), false]]);
      clock.advance(60_000);
      await Promise.all([tidings.runDue(), second.runDue()]);
      expect(sent).toHaveLength(4);
      clock.advance(60_000);
      await tidings.runDue();
      expect([...sent].sort()).toEqual(['a', 'b', 'c', 'd', 'e'].map((id) => `${id}@example.com`));
      await expect(tidings.integrations.update(integration._id, { rateLimit: { messages: 0 } })).rejects.toThrow(/rateLimit\.messages/);
      expect((await tidings.integrations.update(integration._id, { rateLimit: null })).rateLimit).toBeUndefined();
    });

    it('window hits of keys never counted again are deleted by the sweep once expired', async () => {
      const { tidings, clock } = engine();
      await tidings.workflows.upsert(throttled({ amount: 1, unit: 'hours', limit: 1, key: 'project' }));
      await tidings.triggerBulk(['a', 'b', 'c'].map((project) => ({ name: 'comment', to: 'ada', payload: { project } })));
      await tidings.runDue();
      const stored = (await tidings.workflows.get('comment'))!;
      const keyOf = (project: string) => `throttle:${JSON.stringify([stored._id, stored.steps[0]!._id, 'ada', JSON.stringify(project)])}`;
      const keys = async () => [...(await get().frequency.recent('env-a', ['a', 'b', 'c'].map(keyOf), plus(T0, -HOUR))).keys()];
      expect(await keys()).toHaveLength(3);
      clock.advance(HOUR);
      await tidings.runDue();
      expect(await keys()).toEqual([]);
    });

    it('throttle — refused when saved without { amount, unit, limit }, with the field named', async () => {
      const { tidings } = engine();
      await expect(tidings.workflows.upsert(throttled({ amount: 1, unit: 'hours' }))).rejects.toThrow(/steps\[0\]\.metadata\.limit/);
      await expect(tidings.workflows.upsert(throttled({ amount: 1, unit: 'months', limit: 2 }))).rejects.toThrow(/steps\[0\]\.metadata\.unit/);
      expect(await tidings.workflows.list()).toEqual([]);
    });
  });
}
