import type { Notification, Workflow } from '@tidings/core';
import { mergeSubscriber, newId, walkSteps } from '@tidings/core/internal';
// Internal modules of core (not part of its public API): the benchmark measures them directly.
import { newTransactionId } from '../../packages/core/src/ids.js';
import { buildMessage } from '../../packages/core/src/messages/build-message.js';
import { validateEvent } from '../../packages/core/src/trigger/validate-event.js';

/**
 * The domain work one message of the bulk workload needs with no storage, queue, copy or event at
 * all: validate the event, merge the inline subscriber, make the notification, walk the workflow
 * (filters, preferences, rendering) and build the message. Its rate is a ceiling for any backend:
 * the engine cannot store messages faster than it can compute them.
 */
export async function pureWorkRate(workflow: Workflow, messages: number): Promise<number> {
  let checksum = 0;
  const started = performance.now();
  for (let n = 0; n < messages; n++) {
    const subscriberId = `pure-${n}`;
    const validated = validateEvent({ name: 'bench', to: [{ subscriberId, firstName: `S${n}` }], payload: { n } });
    if (!validated.ok) throw new Error(validated.errors.join('; '));
    const now = new Date();
    const at = now.toISOString();
    const subscriber = mergeSubscriber(null, { subscriberId, firstName: `S${n}` }, { _id: newId(now), now: at, environmentId: 'default', organizationId: 'default' });
    const notification: Notification = {
      _id: newId(now),
      _environmentId: 'default',
      _organizationId: 'default',
      _templateId: workflow._id,
      templateIdentifier: workflow.identifier,
      transactionId: newTransactionId(now),
      payload: validated.event.payload,
      overrides: validated.event.overrides,
      actorId: null,
      tenantId: null,
      context: {},
      createdAt: at,
    };
    const walk = await walkSteps({ workflow, notification, subscriber, actor: null, tenant: null, startIndex: 0, now, preferences: [], outsideSchedule: 'defer' });
    for (const delivery of walk.deliveries) checksum += buildMessage(delivery, { workflow, notification, subscriber, now: at, status: 'sent' }).content.length;
  }
  const seconds = (performance.now() - started) / 1000;
  if (checksum === 0) throw new Error('no message was built');
  return messages / seconds;
}
