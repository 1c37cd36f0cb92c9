/**
 * Members of channel step outputs that Novu's output schemas do not name (its validation removes
 * them without a word): kept in the message's `data` where it has one, never dropped silently.
 */
import { workflow as novuWorkflow } from '@novu/framework';
import { describe, expect, it } from 'vitest';
import { contentOfOutputs } from '../../core/src/walk/code-outputs.js';
import { novuWorkflows, workflow } from '../src/index.js';
import { backends, engines } from './engines.js';
import { createTidings, manualClock } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { expoProvider } from '../../providers/src/push/expo.js';
import { expoFake } from '../../providers/test/services/push-expo.js';
import { local, started } from '../../providers/test/started.js';

describe.each(backends('tidings_extras').filter((b) => !b.skip))('extra members of step outputs ($name)', (backend) => {
  const engine = engines(backend);

  it('in-app: members besides Novu’s are kept in the message’s data, beside data’s own, which win a clash', async () => {
    const note = workflow('note', async ({ step }) => {
      await step.inApp('hello', () => ({ body: 'Hi', data: { postId: 'p1', kind: 'from data' }, kind: 'extra', tags: ['billing'], meta: { level: 2 } }));
    });
    const { tidings, drain } = await engine([note]);
    expect((await tidings.trigger({ name: 'note', to: 'ada' })).status).toBe('processed');
    await drain();
    const [message] = (await tidings.messages.feed('ada')).items;
    expect(message?.data).toEqual({ postId: 'p1', kind: 'from data', tags: ['billing'], meta: { level: 2 } });
  });

  it('in-app: extra members alone make the data', async () => {
    const note = workflow('note', async ({ step }) => {
      await step.inApp('hello', () => ({ subject: 'Hi', orderId: 'o-7' }));
    });
    const { tidings, drain } = await engine([note]);
    expect((await tidings.trigger({ name: 'note', to: 'ada' })).status).toBe('processed');
    await drain();
    expect((await tidings.messages.feed('ada')).items[0]?.data).toEqual({ orderId: 'o-7' });
  });

  it('in-app through novuWorkflows: @novu/framework’s own validation removes them, as in Novu; data stays', async () => {
    const note = novuWorkflow('note', async ({ step }) => {
      await step.inApp('hello', async () => ({ body: 'Hi', data: { postId: 'p1' }, ...({ tags: ['billing'] } as object) }));
    });
    const { tidings, drain } = await engine(novuWorkflows([note]));
    expect((await tidings.trigger({ name: 'note', to: 'ada' })).status).toBe('processed');
    await drain();
    expect((await tidings.messages.feed('ada')).items[0]?.data).toEqual({ postId: 'p1' });
  });
});

describe('push outputs', () => {
  it('badge, sound, data and any other member besides subject and body are kept, as returned, in the step content’s data', () => {
    const rendered = contentOfOutputs('push', { subject: 'Build failed', body: 'main is red', badge: 3, sound: 'alert.caf', data: { buildId: 'b1' }, ttl: 60 });
    expect(rendered).toEqual({ title: 'Build failed', content: 'main is red', cta: {}, data: { badge: 3, sound: 'alert.caf', data: { buildId: 'b1' }, ttl: 60 } });
    expect(contentOfOutputs('push', { subject: 'S', body: 'B' })).toEqual({ title: 'S', content: 'B', cta: {} });
  });
});

describe('push outputs through the engine', () => {
  it('badge, sound and data reach the push service’s payload (Expo, played by a local server)', async () => {
    const expo = await started(expoFake({ registered: ['ExponentPushToken[a]'] }));
    const storage = memoryStorage();
    const build = workflow('build', async ({ step }) => {
      await step.push('failed', () => ({ subject: 'Build failed', body: 'main is red', badge: 3, sound: 'alert.caf', data: { buildId: 'b1' } }));
    });
    const tidings = createTidings({ storage, clock: manualClock('2026-03-02T10:00:00.000Z'), workflows: [build], providers: [expoProvider(local(expo.url))] });
    await tidings.integrations.upsert({ name: 'Expo', providerId: 'expo', channel: 'push', active: true, primary: true });
    await tidings.subscribers.upsert({ subscriberId: 'ada', channels: [{ providerId: 'expo', credentials: { deviceTokens: ['ExponentPushToken[a]'] } }] });
    await tidings.trigger({ name: 'build', to: 'ada' });
    await tidings.runDue();
    expect(expo.calls[0]!.json).toEqual([{ to: 'ExponentPushToken[a]', title: 'Build failed', body: 'main is red', data: { buildId: 'b1' }, sound: 'alert.caf', badge: 3 }]);
    await storage.close();
  });
});
