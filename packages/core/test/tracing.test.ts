import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { memoryStorage } from '@tidings/memory';
import { createTidings, type Provider } from '../src/index.js';
import { manualClock } from '../src/testing/index.js';

const mailer: Provider = { id: 'mailer', channel: 'email', send: async (message) => ({ id: `pm-${message.to.email}` }) };

const delayedEmail = {
  name: 'welcome',
  triggers: [{ identifier: 'welcome' }],
  steps: [
    { template: { type: 'delay' as const }, metadata: { type: 'regular' as const, amount: 1, unit: 'hours' as const } },
    { template: { type: 'email' as const, subject: 'Hi', content: 'Hello {{ subscriber.firstName }}' } },
  ],
};

async function engine(options: { tracerProvider?: BasicTracerProvider } = {}) {
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({ storage: memoryStorage(), clock, providers: [mailer], ...options });
  await tidings.integrations.upsert({ name: 'Mailer', identifier: 'mailer-main', providerId: 'mailer', channel: 'email', active: true, primary: true });
  await tidings.workflows.upsert(delayedEmail);
  return { tidings, clock };
}

const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

describe('OpenTelemetry spans', () => {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
  });
  afterAll(() => {
    context.disable();
    trace.disable();
  });

  it('a trigger with a delayed email: one trace holds the trigger, both runs of its job and the provider call, each under its parent', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const { tidings, clock } = await engine({ tracerProvider: provider });
    const app = provider.getTracer('app');

    const { transactionId } = await app.startActiveSpan('POST /notify', async (request) => {
      const result = await tidings.trigger({ name: 'welcome', to: { subscriberId: 'ada', email: 'ada@example.com', firstName: 'Ada' } });
      request.end();
      return result;
    });
    expect(await tidings.runDue()).toBe(1);
    clock.advance(3_600_000);
    expect(await tidings.runDue()).toBe(1);
    expect((await tidings.messages.byTransaction(transactionId!)).map((m) => m.status)).toEqual(['sent']);

    const spans = exporter.getFinishedSpans();
    const [request] = named(spans, 'POST /notify');
    const [triggered] = named(spans, 'tidings.trigger');
    const jobs = named(spans, 'tidings.job');
    const [send] = named(spans, 'tidings.provider.send');
    expect(triggered!.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
    expect(triggered!.attributes).toMatchObject({ 'tidings.workflow': 'welcome', 'tidings.recipients': 1, 'tidings.trigger.status': 'processed', 'tidings.transaction_id': transactionId });
    // The trigger's context was stored with its notification, so each later run joins its trace.
    const notification = await tidings.storage.notifications.getByTransactionId(tidings.environmentId, transactionId!);
    expect(notification?.traceparent).toBe(`00-${triggered!.spanContext().traceId}-${triggered!.spanContext().spanId}-01`);
    expect(jobs).toHaveLength(2);
    for (const job of jobs) {
      expect(job.spanContext().traceId).toBe(triggered!.spanContext().traceId);
      expect(job.parentSpanContext?.spanId).toBe(triggered!.spanContext().spanId);
      expect(job.attributes).toMatchObject({ 'tidings.job.kind': 'walk', 'tidings.transaction_id': transactionId, 'tidings.subscriber_id': 'ada' });
    }
    const steps = (span: ReadableSpan) => span.events.map((e) => `${e.name} ${String(e.attributes?.['tidings.step.type'])} ${String(e.attributes?.['tidings.step.decision'])}`);
    expect(steps(jobs[0]!)).toEqual(['tidings.step delay delayed']);
    expect(jobs[0]!.attributes['tidings.job.outcome']).toBe('later');
    expect(steps(jobs[1]!)).toEqual(['tidings.step email delivered']);
    expect(jobs[1]!.attributes['tidings.job.outcome']).toBe('done');
    expect(send!.parentSpanContext?.spanId).toBe(jobs[1]!.spanContext().spanId);
    expect(send!.attributes).toMatchObject({ 'tidings.provider': 'mailer', 'tidings.integration': 'mailer-main', 'tidings.channel': 'email', 'tidings.outcome': 'sent' });
    expect(send!.attributes['tidings.duration_ms']).toBeGreaterThanOrEqual(0);
  });

  it('a trigger the sampler leaves out leaves its later jobs out too: its context is kept, not sampled', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const { tidings } = await engine({ tracerProvider: provider });
    const { transactionId } = await tidings.trigger({ name: 'welcome', to: 'dee' });
    expect(await tidings.runDue()).toBe(1);
    const notification = await tidings.storage.notifications.getByTransactionId(tidings.environmentId, transactionId!);
    expect(notification?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('without a tracer provider given, spans go to the global one once an SDK registers it, and nowhere before', async () => {
    const { tidings } = await engine();
    const before = await tidings.trigger({ name: 'welcome', to: 'bob' });
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    await tidings.trigger({ name: 'welcome', to: 'cy' });
    await tidings.runDue();
    expect(named(exporter.getFinishedSpans(), 'tidings.trigger')).toHaveLength(1);
    // The run of the trigger made before has no trace to join: its job span starts one of its own.
    const jobs = named(exporter.getFinishedSpans(), 'tidings.job');
    expect(jobs).toHaveLength(2);
    expect(jobs.filter((j) => j.parentSpanContext === undefined).map((j) => j.attributes['tidings.transaction_id'])).toEqual([before.transactionId]);
  });
});
