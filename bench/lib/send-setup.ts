import type { Provider, Tidings, WorkflowInput } from '@tidings/core';
import { upsertSubscribers } from '@tidings/core/internal';
import { sendgridProvider } from '@tidings/providers';

/** The send path's workflow: one email step, rendered per recipient, no layout. */
export const SEND_WORKFLOW: WorkflowInput = {
  name: 'Bench send',
  triggers: [{ identifier: 'bench-send' }],
  steps: [
    {
      template: {
        type: 'email',
        subject: 'News for {{ subscriber.firstName }}',
        content: '<p>Hello {{ subscriber.firstName }},</p><p>Our <b>{{ payload.edition }}</b> edition is out. <a href="https://bench.test/news/{{ payload.edition }}">Read it</a>.</p>',
        layoutId: null,
      },
    },
  ],
};

export const SEND_TOPIC = 'send-everyone';
export const SEND_API_KEY = 'SG.bench';

/** `size` subscribers with an email address, all in one topic, written straight through the store (setup, not measured). */
export async function seedRecipients(tidings: Tidings, size: number) {
  const now = new Date().toISOString();
  for (let i = 0; i < size; i += 5_000) {
    const ids = Array.from({ length: Math.min(5_000, size - i) }, (_, k) => `r-${i + k}`);
    await tidings.storage.transaction((tx) => upsertSubscribers(tx, 'default', ids.map((subscriberId, k) => ({ _id: `i-${i + k}`, patch: { subscriberId, firstName: `R${i + k}`, email: `r-${i + k}@bench.test` } })), now, 'default'));
    await tidings.topics.addSubscribers(SEND_TOPIC, ids);
  }
}

/** The workflow and a SendGrid integration pointed at `providerUrl` (the fake provider), or at an in-process one when null. */
export async function setUpSending(tidings: Tidings, providerUrl: string | null) {
  await tidings.workflows.upsert(SEND_WORKFLOW);
  await tidings.integrations.upsert({ name: 'SendGrid', identifier: 'sendgrid', providerId: 'sendgrid', channel: 'email', primary: true, active: true, credentials: { apiKey: SEND_API_KEY, from: 'news@bench.test', ...(providerUrl && { baseUrl: providerUrl }) } });
}

/** The trigger that sends one email to every recipient. */
export const triggerSend = (tidings: Tidings) => tidings.trigger({ name: 'bench-send', to: { type: 'Topic', topicKey: SEND_TOPIC }, payload: { edition: 'Winter' } });

/** SendGrid's provider, allowed to reach the fake on loopback; or one in this process that accepts at once. */
export function sendProvider(providerUrl: string | null): Provider {
  if (providerUrl) return sendgridProvider({ network: { allow: ['127.0.0.1'] } });
  let n = 0;
  return { id: 'sendgrid', channel: 'email', send: async () => ({ id: `local-${n++}` }) };
}
