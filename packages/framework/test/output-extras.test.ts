/**
 * Members of channel step outputs that Novu's output schemas do not name (its validation removes
 * them without a word): kept in the message's `data` where it has one, never dropped silently.
 */
import { workflow as novuWorkflow } from '@novu/framework';
import { describe, expect, it } from 'vitest';
import { contentOfOutputs } from '../../core/src/walk/code-outputs.js';
import { novuWorkflows, workflow } from '../src/index.js';
import { backends, engines } from './engines.js';

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
