// The app's workflows, written as functions. `tidings serve --workflows` can load this file as it is.
import { workflow } from '@tidings/framework';
import { z } from 'zod';

/** Makes a support ticket in the help desk; here, a counter stands in for the help desk's API. */
export const helpDesk = { opened: 0 };

/**
 * A comment on a post: in the app at once; an hour later, an email, unless the in-app message was
 * read by then.
 */
export const commentReceived = workflow(
  'comment-received',
  async ({ step, payload }) => {
    const note = await step.inApp('note', () => ({
      subject: `${payload.author} commented on “${payload.post}”`,
      body: payload.text,
      primaryAction: { label: 'Reply', redirect: { url: `/posts/${payload.postId}` } },
    }));
    await step.delay('wait', () => ({ amount: 1, unit: 'hours' }));
    await step.email('reminder', () => ({ subject: `You have an unread comment from ${payload.author}`, body: `<p>${payload.text}</p>` }), {
      skip: () => note.read,
    });
  },
  { payloadSchema: z.object({ postId: z.string(), post: z.string(), author: z.string(), text: z.string() }) },
);

/**
 * Failed payments of one customer within 30 minutes are gathered: one support ticket (a side effect,
 * so a custom step: it runs once, whatever is replayed), then one in-app message with the total.
 */
export const paymentFailed = workflow(
  'payment-failed',
  async ({ step }) => {
    const { events } = await step.digest('gather', () => ({ amount: 30, unit: 'minutes', digestKey: 'customer' }));
    const ticket = await step.custom('ticket', async () => ({ id: `T-${++helpDesk.opened}` }), { outputSchema: z.object({ id: z.string() }) });
    const total = events.reduce((sum, event) => sum + Number(event.payload['amount']), 0);
    await step.inApp('summary', () => ({
      subject: `${events.length} failed payments of ${events[0]?.payload['customer']}`,
      body: `${total.toFixed(2)} EUR in all; ticket ${ticket.id}`,
    }));
  },
  { payloadSchema: z.object({ customer: z.string(), amount: z.number() }), severity: 'high' },
);
