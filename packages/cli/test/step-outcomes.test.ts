/**
 * What a run reports of each channel step: `/metrics` counts steps by outcome (a step skipped by a
 * preference as `skipped`, a send that failed for good as `failed`, its earlier attempt as `retry`),
 * and the log has a line for the skip as for the failure.
 */
import { createTidings, manualClock, ProviderError, type Provider } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { prometheusMetrics } from '../src/prometheus-metrics.js';
import { engineLogging, serveLogger } from '../src/serve-log.js';
import { sample } from './prometheus-sample.js';

describe('step outcomes in metrics and logs', () => {
  it('a step skipped by a preference counts as outcome="skipped" and logs a line; a send failed for good counts as failed, its earlier attempt as retry', async () => {
    const metrics = prometheusMetrics();
    const lines: Record<string, unknown>[] = [];
    const logger = serveLogger({ write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const relay: Provider = {
      id: 'relay',
      channel: 'email',
      async send() {
        throw new ProviderError('the relay answered 503', { retryable: true, status: 503 });
      },
    };
    const clock = manualClock('2026-06-01T12:00:00.000Z');
    const tidings = createTidings({ storage: memoryStorage(), clock, providers: [relay], maxAttempts: 2, meterProvider: metrics.meterProvider });
    const stopLogging = engineLogging(tidings, logger);
    try {
      await tidings.integrations.upsert({ identifier: 'relay', providerId: 'relay', channel: 'email', primary: true });
      await tidings.workflows.upsert({ name: 'News', triggers: [{ identifier: 'news' }], steps: [{ template: { type: 'email', subject: 'News', content: 'Hello' } }] });
      await tidings.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com' });
      await tidings.subscribers.upsert({ subscriberId: 'bob', email: 'bob@example.com' });
      await tidings.preferences.update('ada', { workflowId: 'news', channels: { email: false } });
      const result = await tidings.trigger({ name: 'news', to: ['ada', 'bob'] });
      if (result.status !== 'processed') throw new Error(result.status);
      await tidings.runDue();
      clock.advance(3_600_000);
      await tidings.runDue();
      expect((await tidings.messages.byTransaction(result.transactionId)).map((m) => [m.subscriberId, m.status])).toEqual([['bob', 'error']]);

      const text = await (await metrics.respond()).text();
      expect(sample(text, 'tidings_steps_total', { channel: 'email', outcome: 'skipped' })).toBe(1);
      expect(sample(text, 'tidings_steps_total', { channel: 'email', outcome: 'failed' })).toBe(1);
      expect(sample(text, 'tidings_steps_total', { channel: 'email', outcome: 'sent' })).toBeUndefined();
      expect(sample(text, 'tidings_provider_send_duration_count', { provider: 'relay', outcome: 'retry' })).toBe(1);
      expect(sample(text, 'tidings_provider_send_duration_count', { provider: 'relay', outcome: 'failed' })).toBe(1);

      const skip = lines.find((line) => line['msg'] === 'delivery skipped');
      expect(skip).toMatchObject({ level: 'info', transactionId: result.transactionId, subscriberId: 'ada', channel: 'email', stepIndex: 0, reason: expect.stringContaining('email') });
      expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'delivery failed', subscriberId: 'bob', channel: 'email' }));
    } finally {
      stopLogging();
      await metrics.shutdown();
    }
  });
});
