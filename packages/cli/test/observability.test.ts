/**
 * `serve({ metrics: true })`: `/metrics` scraped after a run (no API key) shows the counts the stored
 * messages and jobs have; the log lines of the same run are JSON, each about a trigger with its
 * transaction id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../src/serve.js';
import { eventually } from '../../http/test/eventually.js';
import { sample } from './prometheus-sample.js';

const KEY = 'tid_metrics_key';
const dir = mkdtempSync(join(tmpdir(), 'tidings-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('metrics and logs of tidings serve', () => {
  it('/metrics after a run: triggers, messages by channel and status as stored, provider latency, job lag, queued jobs and open digests; every log line is JSON with the transaction id', async () => {
    const lines: string[] = [];
    const server = await serve({ port: 0, db: join(dir, 'metrics.db'), apiKey: KEY, graceMs: 500, metrics: true, log: { requests: true, deliveries: true, destination: { write: (line: string) => void lines.push(line) } } });
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as { data: any } };
    };
    try {
      const { tidings } = server;
      // Chat to a loopback webhook, which webhook providers refuse: a failed send; no email integration: not sent.
      await tidings.integrations.upsert({ name: 'Hook', providerId: 'chat-webhook', channel: 'chat', credentials: { webhookUrl: 'http://127.0.0.1:9/hook' }, active: true });
      await tidings.workflows.upsert({
        name: 'welcome',
        triggers: [{ identifier: 'welcome' }],
        steps: [{ template: { type: 'in_app', content: 'Hi' } }, { template: { type: 'email', subject: 'Hi', content: 'Hello' } }, { template: { type: 'chat', content: 'Hi' } }],
      });
      await tidings.workflows.upsert({ name: 'later', triggers: [{ identifier: 'later' }], steps: [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: 'Later' } }] });
      await tidings.workflows.upsert({ name: 'digest', triggers: [{ identifier: 'digest' }], steps: [{ template: { type: 'digest' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: 'Digest' } }] });

      const single = await api('/v1/events/trigger', { name: 'welcome', to: { subscriberId: 'ann', email: 'ann@example.com' } });
      const bulk = await api('/v1/events/trigger/bulk', { events: [{ name: 'welcome', to: 'bob' }, { name: 'later', to: 'ann' }, { name: 'digest', to: 'ann' }] });
      expect((await api('/v1/events/trigger', { name: 'nope', to: 'ann' })).status).toBe(422);
      const welcomes: string[] = [single.body.data.transactionId, bulk.body.data[0].transactionId];
      const transactions: string[] = [...welcomes, bulk.body.data[1].transactionId, bulk.body.data[2].transactionId];

      const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const deliveryLines = () => logged().filter((line) => typeof line['msg'] === 'string' && line['msg'].startsWith('delivery'));
      // Both welcome walks have committed and told of it (their delivery lines come with the metrics they count).
      const deliveries = await eventually(async () => (deliveryLines().length === 4 ? deliveryLines() : undefined), 'the delivery lines');
      const stored = (await Promise.all(transactions.map((id) => tidings.messages.byTransaction(id)))).flat();
      expect(stored).toHaveLength(6);
      const scrape = await fetch(`${server.url}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await scrape.text();

      expect(sample(text, 'tidings_triggers_total', { status: 'processed' })).toBe(4);
      expect(sample(text, 'tidings_triggers_total', { status: 'error' })).toBe(1);
      const byKind = new Map<string, number>();
      for (const m of stored) byKind.set(`${m.channel} ${m.status}`, (byKind.get(`${m.channel} ${m.status}`) ?? 0) + 1);
      expect([...byKind]).toEqual(expect.arrayContaining([['in_app sent', 2], ['email warning', 2], ['chat error', 2]]));
      for (const [key, count] of byKind) {
        const [channel, status] = key.split(' ') as [string, string];
        expect(sample(text, 'tidings_messages_total', { channel, status }), key).toBe(count);
      }
      expect(sample(text, 'tidings_provider_send_duration_count', { provider: 'chat-webhook', outcome: 'failed' })).toBe(2);
      expect(sample(text, 'tidings_job_lag_count', { kind: 'walk' })).toBeGreaterThanOrEqual(3);
      // The delayed walk and the digest's flush wait an hour; the digest is open.
      const jobs = await tidings.storage.jobs.countByKind(tidings.environmentId);
      expect(sample(text, 'tidings_jobs_queued', { kind: 'walk' })).toBe(jobs.walk);
      expect(sample(text, 'tidings_jobs_queued', { kind: 'digest' })).toBe(1);
      expect(sample(text, 'tidings_jobs_queued', { kind: 'fanout' })).toBe(0);
      expect(sample(text, 'tidings_digests_open')).toBe(1);

      expect(logged()).toContainEqual(expect.objectContaining({ level: 'info', msg: 'request', method: 'POST', path: '/v1/events/trigger', status: 201, transactionId: welcomes[0] }));
      expect(logged()).toContainEqual(expect.objectContaining({ msg: 'request', method: 'POST', path: '/v1/events/trigger/bulk', status: 201, transactionIds: transactions.slice(1) }));
      // A request line is written once its response is over, which the client may see first.
      await eventually(async () => logged().find((line) => line['path'] === '/metrics' && line['status'] === 200), 'the scrape\'s line');
      expect(deliveries.map((line) => `${String(line['msg'])} ${String(line['channel'])}`).sort()).toEqual(['delivery failed chat', 'delivery failed chat', 'delivery not_sent email', 'delivery not_sent email']);
      expect(new Set(deliveries.map((line) => line['transactionId']))).toEqual(new Set(welcomes));
    } finally {
      await server.close();
    }
  });
});
