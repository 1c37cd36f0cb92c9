import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import type { HttpStepTransport, HttpStepTransportRequest } from '../../delivery/http-step-transport.js';
import { createTidings } from '../../engine/create-tidings.js';
import type { SuiteContext } from '../storage-under-test.js';

const HOUR = 3_600_000;

/**
 * Branch and http steps of JSON workflows on every backend: what they decided travels with the walk's
 * job (its state), so the steps after a delay keep to the branch taken and see the answer fetched
 * before it, without asking again.
 */
export function flowStepsSuite({ get }: SuiteContext): void {
  describe('branch and http steps over this storage', () => {
    it('flow steps — a branch choice and an http answer are kept across a delay: the run keeps its branch and never asks again', async () => {
      const requests: HttpStepTransportRequest[] = [];
      const plans = ['pro', 'free'];
      const transport: HttpStepTransport = async (request) => {
        requests.push(request);
        return { status: 200, headers: {}, body: JSON.stringify({ plan: plans[requests.length - 1] ?? 'free', seats: 3 }) };
      };
      const clock = manualClock('2026-06-01T12:00:00.000Z');
      const tidings = createTidings({ storage: get(), clock, environmentId: 'flow-steps', httpStepTransport: transport });
      const on = (field: string, value: string) => [{ value: 'AND' as const, children: [{ on: 'steps' as const, field, operator: 'EQUAL' as const, value }] }];
      await tidings.workflows.upsert({
        name: 'Plans',
        triggers: [{ identifier: 'plans' }],
        steps: [
          { _id: 'account', template: { type: 'http' }, http: { url: 'https://api.example.com/{{ subscriber.subscriberId }}' } },
          { _id: 'route', template: { type: 'branch' }, branch: { branches: [{ name: 'pro', conditions: on('account.plan', 'pro'), steps: ['pro'] }], default: ['free'], exit: true } },
          { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } },
          { _id: 'pro', template: { type: 'in_app', content: 'Pro with {{ steps.account.seats }} seats' } },
          { _id: 'free', template: { type: 'in_app', content: 'Free' } },
          { _id: 'after', template: { type: 'in_app', content: 'never: the branch exits' } },
        ],
      });
      const { transactionId } = await tidings.trigger({ name: 'plans', to: 'ada' });
      await tidings.runDue();
      clock.advance(HOUR);
      await tidings.runDue();
      expect(requests.map((r) => r.url)).toEqual(['https://api.example.com/ada']);
      expect((await tidings.messages.byTransaction(transactionId!)).map((m) => m.content)).toEqual(['Pro with 3 seats']);
      const entries = (await tidings.explain(transactionId!)).flatMap((r) => r.entries);
      expect(entries.map((e) => [e.stepId || e.type, e.decision])).toEqual([
        ['account', 'ran'],
        ['route', 'ran'],
        [expect.any(String), 'delayed'],
        ['pro', 'delivered'],
        ['free', 'skipped'],
        ['after', 'skipped'],
      ]);
    });
  });
}
