// "Email if the in-app message is not read within an hour", written both ways: as a workflow in code
// (`step.waitForEvent`) and as a JSON workflow (a `wait` step). Neither needs app code: the engine's
// own `message.read` event, for the run's own message, ends the wait (docs/waits.md).
import { createTidings, manualClock, type WorkflowInput } from '@tidings/core';
import { workflow } from '@tidings/framework';
import { consoleProviders } from '@tidings/providers';
import { sqliteStorage } from '@tidings/sqlite';
import { rmSync } from 'node:fs';
import { z } from 'zod';

/** In code: the in-app message, then wait up to an hour for it to be read; the email only if it was not. */
export const escalationInCode = workflow(
  'escalation-code',
  async ({ step, payload }) => {
    await step.inApp('note', () => ({ subject: `Invoice ${payload.invoice} is due`, body: 'Please pay it this week.' }));
    const read = await step.waitForEvent('read', { event: 'message.read', timeout: '1h' });
    await step.email('reminder', () => ({ subject: `Reminder: invoice ${payload.invoice} is due`, body: '<p>Please pay it this week.</p>' }), { skip: () => read.matched });
  },
  { payloadSchema: z.object({ invoice: z.string() }) },
);

/** As data: a `wait` step whose matching event ends the run (`onEvent: 'halt'`); its timeout goes on to the email. */
export const escalationAsJson: WorkflowInput = {
  name: 'Escalation (JSON)',
  triggers: [{ identifier: 'escalation-json' }],
  steps: [
    { _id: 'note', template: { type: 'in_app', subject: 'Invoice {{ payload.invoice }} is due', content: 'Please pay it this week.' } },
    { _id: 'read', template: { type: 'wait' }, metadata: { event: 'message.read', timeout: '1h', onEvent: 'halt' } },
    { _id: 'reminder', template: { type: 'email', subject: 'Reminder: invoice {{ payload.invoice }} is due', content: '<p>Please pay it this week.</p>' } },
  ],
};

/** Runs both on SQLite with a manual clock: Ada reads her messages, Bob does not. */
export async function escalation(log: (line: string) => void = console.log, filename = '.tidings/escalation.db') {
  for (const suffix of ['', '-wal', '-shm']) rmSync(filename + suffix, { force: true });
  const clock = manualClock('2026-03-02T09:00:00Z');
  const tidings = createTidings({ storage: sqliteStorage({ filename }), clock, workflows: [escalationInCode], providers: consoleProviders({ channels: ['email'], log: (line) => log(`  ${line}`) }) });
  await tidings.integrations.upsert({ identifier: 'console-email', providerId: 'console', channel: 'email', credentials: {}, primary: true, active: true });
  await tidings.workflows.upsert(escalationAsJson);
  const people = [{ subscriberId: 'ada', email: 'ada@example.com' }, { subscriberId: 'bob', email: 'bob@example.com' }];
  log('09:00 two invoices fall due, for Ada and for Bob, each workflow once');
  for (const [name, invoice] of [['escalation-code', 'I-1'], ['escalation-json', 'I-2']] as const) await tidings.trigger({ name, to: people, payload: { invoice } });
  await tidings.runDue();
  clock.set('2026-03-02T09:20:00Z');
  for (const message of (await tidings.messages.feed('ada')).items) await tidings.messages.markAs('ada', { messageId: message._id, markAs: 'read' });
  log('09:20 Ada reads both');
  clock.set('2026-03-02T10:00:00Z');
  log('10:00 an hour later:');
  await tidings.runDue();
  await tidings.runDue();
  for (const { subscriberId } of people) {
    for (const message of (await tidings.messages.feed(subscriberId)).items.reverse()) {
      const steps = (await tidings.explain(message.transactionId, subscriberId)).flatMap((record) => record.entries).filter((e) => e.type === 'wait');
      log(`  ${subscriberId}, ${message.templateIdentifier}: ${steps.map((e) => `${e.stepId} ${e.decision}: ${e.reason.replace(/ (at|before|until) [\d\-T:.]+Z/g, '')}`).join('; ')}`);
    }
  }
  await tidings.storage.close();
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  await escalation();
}
