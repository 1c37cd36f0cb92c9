/**
 * `digestKey` of a code workflow's digest: Novu takes the value itself as the grouping key (its worker
 * stores `digestValue: outputs.digestKey`), so a Novu file writes `digestKey: payload.postId`. Tidings
 * reads the string as a payload path first; a string that names no payload member groups by itself.
 */
import { workflow as novuWorkflow } from '@novu/framework';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { novuWorkflows, workflow } from '../src/index.js';
import { backends, engines } from './engines.js';

const EVENTS = [['p1', 'one'], ['p2', 'other'], ['p1', 'two']] as const;

describe.each(backends('tidings_digestkey').filter((b) => !b.skip))('digestKey ($name)', (backend) => {
  const engine = engines(backend);

  const run = async (workflows: Parameters<typeof engine>[0]) => {
    const { tidings, clock, drain } = await engine(workflows);
    for (const [postId, text] of EVENTS) {
      expect((await tidings.trigger({ name: 'comments', to: 'ada', payload: { postId, text } })).status).toBe('processed');
      clock.advance(60_000);
      await drain();
    }
    const open = (await tidings.pending()).digests.length;
    clock.advance(30 * 60_000);
    await drain();
    return { open, contents: (await tidings.messages.feed('ada')).items.map((m) => String(m.content)).sort() };
  };

  it('the value as Novu writes it (`digestKey: payload.postId`): one digest per value, with workflow()', async () => {
    const comments = workflow(
      'comments',
      async ({ step, payload }) => {
        const { events } = await step.digest('gather', () => ({ amount: 30, unit: 'minutes', digestKey: payload.postId }));
        await step.inApp('summary', () => ({ body: `${payload.postId}: ${events.map((e) => e.payload['text']).join(', ')}` }));
      },
      { payloadSchema: z.object({ postId: z.string(), text: z.string() }) },
    );
    expect(await run([comments])).toEqual({ open: 2, contents: ['p1: one, two', 'p2: other'] });
  });

  it('the same through novuWorkflows (@novu/framework’s own workflow())', async () => {
    const comments = novuWorkflow(
      'comments',
      async ({ step, payload }) => {
        const { events } = await step.digest('gather', async () => ({ amount: 30, unit: 'minutes', digestKey: payload.postId }));
        await step.inApp('summary', async () => ({ body: `${payload.postId}: ${events.map((e) => String(e.payload['text'])).join(', ')}` }));
      },
      { payloadSchema: z.object({ postId: z.string(), text: z.string() }) },
    );
    expect(await run(novuWorkflows([comments]))).toEqual({ open: 2, contents: ['p1: one, two', 'p2: other'] });
  });
});
