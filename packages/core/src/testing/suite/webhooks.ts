import { describe, expect, it } from 'vitest';
import type { WebhookDelivery, WebhookEndpoint } from '../../schemas/index.js';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, plus } from '../fixtures.js';

const endpoint = (id: string, createdAt: string): WebhookEndpoint => ({ _id: id, url: `https://hooks.example.com/${id}`, events: ['message.sent'], active: true, secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0', failures: 0, createdAt, updatedAt: createdAt });
const delivery = (id: string, endpointId: string, createdAt: string, status: WebhookDelivery['status'] = 'pending'): WebhookDelivery => ({
  _id: id,
  endpointId,
  eventType: 'message.sent',
  payload: { type: 'message.sent', timestamp: createdAt, data: { n: id } },
  status,
  attempts: 0,
  createdAt,
  updatedAt: createdAt,
});

export function webhooksSuite({ get }: SuiteContext): void {
  describe('webhook endpoints and deliveries', () => {
    it('webhooks — endpoints are put, read, listed oldest first and deleted with their deliveries; deliveries are listed newest first, by endpoint and status, a page at a time', async () => {
      const s = get();
      await s.webhooks.putEndpoint('env-a', endpoint('e2', plus(T0, 1000)));
      await s.webhooks.putEndpoint('env-a', endpoint('e1', T0));
      await s.webhooks.putEndpoint('env-b', endpoint('e3', T0));
      await s.webhooks.putEndpoint('env-a', { ...endpoint('e1', T0), active: false, failures: 3 });
      expect((await s.webhooks.listEndpoints('env-a')).map((e) => [e._id, e.active])).toEqual([['e1', false], ['e2', true]]);
      expect(await s.webhooks.getEndpoint('env-b', 'e1')).toBeNull();

      await s.webhooks.insertDeliveries('env-a', [delivery('d1', 'e1', T0), delivery('d2', 'e2', plus(T0, 1)), delivery('d3', 'e1', plus(T0, 2)), delivery('d4', 'e1', plus(T0, 2))]);
      await s.webhooks.putDelivery('env-a', { ...delivery('d1', 'e1', T0, 'delivered'), attempts: 2, lastStatus: 200 });
      expect(await s.webhooks.getDelivery('env-a', 'd1')).toMatchObject({ status: 'delivered', attempts: 2, lastStatus: 200 });
      const ids = async (query: Parameters<ReturnType<typeof get>['webhooks']['listDeliveries']>[1]) => (await s.webhooks.listDeliveries('env-a', query)).map((d) => d._id);
      expect(await ids({ limit: 10 })).toEqual(['d4', 'd3', 'd2', 'd1']);
      expect(await ids({ limit: 2, after: { createdAt: plus(T0, 2), id: 'd3' } })).toEqual(['d2', 'd1']);
      expect(await ids({ limit: 10, endpointId: 'e1', status: 'pending' })).toEqual(['d4', 'd3']);

      expect(await s.webhooks.deleteEndpoint('env-a', 'e1')).toBe(true);
      expect(await s.webhooks.deleteEndpoint('env-a', 'e1')).toBe(false);
      expect(await ids({ limit: 10 })).toEqual(['d2']);
      expect(await s.webhooks.listEndpoints('env-b')).toHaveLength(1);
    });
  });
}
