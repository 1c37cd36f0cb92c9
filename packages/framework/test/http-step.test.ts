/**
 * `step.http` in a code workflow, on memory and SQLite: the request goes through the engine's
 * transport once (its answer stored with the walk and replayed, never sent again), its fields typed
 * by a zod responseSchema, a plain `if` on them branching the same way after a delay even when the
 * service would now answer otherwise, a retryable 503 tried again, and a final 400 under
 * `continueOnFailure`; without `dynamicSteps` a step behind such an `if` fails the walk. The transport here is a stub: the address guard is `httpStepTransport`'s
 * (proved against a real server in @tidings/providers).
 */
import { createTidings, manualClock } from '@tidings/core';
import type { HttpStepTransport, HttpStepTransportRequest } from '@tidings/core/internal';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { workflow } from '../src/index.js';
import { backends } from './engines.js';
import { memoryStorage } from '@tidings/memory';

const HOUR = 3_600_000;

function stub(answers: { status: number; body?: unknown; headers?: Record<string, string> }[]) {
  const requests: HttpStepTransportRequest[] = [];
  const transport: HttpStepTransport = async (request) => {
    requests.push(request);
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)]!;
    return { status: answer.status, headers: answer.headers ?? {}, body: answer.body === undefined ? '' : JSON.stringify(answer.body) };
  };
  return { requests, transport };
}

const plans = workflow('plans', async ({ step, payload }) => {
  const account = await step.http('account', {
    method: 'POST',
    url: `https://api.example.com/accounts/${String(payload['accountId'])}`,
    headers: { authorization: 'Bearer secret' },
    body: { from: 'tidings' },
    responseSchema: z.object({ plan: z.enum(['pro', 'free']) }),
    continueOnFailure: true,
  });
  await step.delay('wait', () => ({ amount: 1, unit: 'hours' }));
  // A plain `if` on a stored step result: the replay after the delay takes the same side.
  if ('error' in account) await step.inApp('failed', () => ({ body: `Check failed: ${account.error.status ?? ''}` }));
  else if (account.plan === 'pro') await step.inApp('pro', () => ({ body: 'Thanks for being pro' }));
  else await step.inApp('free', () => ({ body: 'Try pro' }));
}, { payloadSchema: z.object({ accountId: z.string() }), dynamicSteps: true });

for (const backend of backends('tidings_httpstep')) {
  describe.skipIf(backend.skip)(`step.http: ${backend.name}`, () => {
    async function run(answers: Parameters<typeof stub>[0]) {
      const storage = backend.create();
      const clock = manualClock('2026-03-02T10:00:00Z');
      const { requests, transport } = stub(answers);
      const tidings = createTidings({ storage, clock, workflows: [plans], httpStepTransport: transport });
      await tidings.subscribers.upsert({ subscriberId: 'ada' });
      const drain = async () => {
        while ((await tidings.runDue()) > 0);
      };
      const { transactionId } = await tidings.trigger({ name: 'plans', to: 'ada', payload: { accountId: 'a1' } });
      await drain();
      return { tidings, clock, requests, drain, storage, transactionId: transactionId! };
    }

    it('sends once, replays the stored answer, and a plain if branches the same way after a delay', async () => {
      // The service would say "free" if asked again: the run never asks again.
      const { tidings, clock, requests, drain, storage, transactionId } = await run([{ status: 200, body: { plan: 'pro', extra: 1 } }, { status: 200, body: { plan: 'free' } }]);
      expect(requests).toEqual([{ method: 'POST', url: 'https://api.example.com/accounts/a1', headers: { 'idempotency-key': expect.any(String), authorization: 'Bearer secret', 'content-type': 'application/json' }, body: '{"from":"tidings"}', timeoutMs: 10_000 }]);
      clock.advance(HOUR);
      await drain();
      expect(requests).toHaveLength(1);
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['Thanks for being pro']);
      const entries = (await tidings.explain(transactionId)).flatMap((r) => r.entries);
      expect(entries.find((e) => e.stepId === 'account')).toMatchObject({ type: 'http', decision: 'ran', reason: 'POST https://api.example.com/accounts/a1 answered 200' });
      await storage.close();
    });

    it('a 503 is tried again later; a final 400 under continueOnFailure resolves to { error } and the run goes on', async () => {
      const { tidings, clock, requests, drain, storage, transactionId } = await run([{ status: 503 }, { status: 400 }]);
      expect(requests).toHaveLength(1);
      clock.advance(HOUR);
      await drain();
      expect(requests).toHaveLength(2);
      clock.advance(HOUR);
      await drain();
      expect((await tidings.explain(transactionId)).flatMap((r) => r.entries).map((e) => [e.stepId, e.decision])).toEqual([['account', 'held'], ['account', 'failed'], ['wait', 'delayed'], ['failed', 'delivered']]);
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['Check failed: 400']);
      await storage.close();
    });
  });
}

it('without dynamicSteps, a step behind an if that discovery did not reach fails the walk (as in @novu/framework)', async () => {
  const strict = workflow('strict', async ({ step }) => {
    const account = await step.http('account', { url: 'https://api.example.com/a' });
    if (account['plan'] === 'pro') await step.inApp('pro', () => ({ body: 'pro' }));
    await step.inApp('always', () => ({ body: 'always' }));
  });
  const { transport } = stub([{ status: 200, body: { plan: 'pro' } }]);
  const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-03-02T10:00:00Z'), workflows: [strict], httpStepTransport: transport });
  await tidings.subscribers.upsert({ subscriberId: 'ada' });
  const { transactionId } = await tidings.trigger({ name: 'strict', to: 'ada' });
  while ((await tidings.runDue()) > 0);
  expect((await tidings.explain(transactionId!)).flatMap((r) => r.entries).map((e) => [e.stepId, e.decision])).toEqual([['account', 'ran'], ['pro', 'failed']]);
});
