import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { ProviderError, type Provider } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import type { SuiteContext } from '../storage-under-test.js';

/** An email provider that refuses (for good) the first `failures` sends, then takes every one. */
function flakyMail(failures: number) {
  const calls: { messageId: string; content: string }[] = [];
  const provider: Provider = {
    id: 'mailer',
    channel: 'email',
    async send(message) {
      calls.push({ messageId: message.messageId, content: message.content });
      if (calls.length <= failures) throw new ProviderError(`mail service refused send ${calls.length}`, { retryable: false, status: 500 });
      return { id: `pm-${calls.length}` };
    },
  };
  return { provider, calls };
}

/**
 * An SMS provider without an idempotency key whose first `silent` sends get no answer: each waits
 * until the engine gives up on it (its signal aborts); later ones are taken.
 */
function silentSms(silent: number) {
  const calls: { messageId: string; key: string | undefined; aborted: boolean }[] = [];
  const provider: Provider = {
    id: 'texter',
    channel: 'sms',
    async send(message, _credentials, context) {
      const call = { messageId: message.messageId, key: context?.idempotencyKey, aborted: false };
      calls.push(call);
      if (calls.length > silent) return { id: `tx-${calls.length}` };
      return new Promise((_, reject) => {
        context?.signal?.addEventListener('abort', () => {
          call.aborted = true;
          reject(context.signal!.reason);
        });
      });
    },
  };
  return { provider, calls };
}

const email = (content: string, extra: object = {}) => ({ template: { type: 'email' as const, subject: 'Hi', content }, ...extra });
const inApp = (content: string) => ({ template: { type: 'in_app' as const, content } });

export function retrySuite({ get }: SuiteContext): void {
  describe('retry', () => {
    const engine = async (environmentId: string, failures: number, steps: object[]) => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const mail = flakyMail(failures);
      const tidings = createTidings({ storage: get(), clock, environmentId, providers: [mail.provider] });
      await tidings.integrations.upsert({ name: 'Mailer', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.workflows.upsert({ name: 'Notice', triggers: [{ identifier: 'notice' }], steps: steps as never });
      return { clock, tidings, calls: mail.calls };
    };

    it('retry — a step that failed for good runs again as a new job; its message takes the error message’s id and place; the steps the walk went on to are not made again', async () => {
      const { tidings, calls } = await engine('env-retry', 1, [email('Hello'), inApp('Also here')]);
      const { transactionId } = await tidings.trigger({ name: 'notice', to: { subscriberId: 'ada', email: 'ada@example.com' } });
      await tidings.runDue();
      const [failed, note] = await tidings.messages.byTransaction(transactionId!);
      expect(failed).toMatchObject({ channel: 'email', status: 'error', errorText: 'mail service refused send 1' });
      expect(note).toMatchObject({ channel: 'in_app', status: 'sent' });

      const sent: string[] = [];
      tidings.events.on('message.sent', ({ message }) => sent.push(message._id));
      expect(await tidings.retry(transactionId!, 'ada')).toEqual({ retried: [{ stepIndex: 0, messageIds: [failed!._id] }] });
      // A second click before the job ran queues nothing more.
      await tidings.retry(transactionId!, 'ada');
      expect((await tidings.pending({ transactionId: transactionId! })).jobs).toMatchObject([{ subscriberId: 'ada', stepIndex: 0 }]);
      expect(await tidings.runDue()).toBe(1);

      const after = await tidings.messages.byTransaction(transactionId!);
      expect(after).toHaveLength(2);
      expect(after.find((m) => m.channel === 'email')).toMatchObject({ _id: failed!._id, status: 'sent', providerMessageId: 'pm-2' });
      expect(after.find((m) => m.channel === 'email')).not.toHaveProperty('errorText');
      expect(after.find((m) => m.channel === 'in_app')).toEqual(note);
      expect(calls.map((c) => c.messageId)).toEqual([failed!._id, failed!._id]);
      expect(sent).toEqual([failed!._id]);
      // The retry's run is a record of its own: the step alone, delivered.
      const records = await tidings.explain(transactionId!, 'ada');
      expect(records.map((r) => r.entries.map((e) => `${e.stepIndex}:${e.decision}`))).toEqual([['0:failed', '1:delivered'], ['0:delivered']]);

      await expect(tidings.retry(transactionId!, 'ada')).rejects.toMatchObject({ code: 'conflict' });
      await expect(tidings.retry('no-such-transaction', 'ada')).rejects.toMatchObject({ code: 'not_found' });
      await expect(tidings.retry(transactionId!, 'nobody')).rejects.toMatchObject({ code: 'not_found' });
      await expect(tidings.retry(transactionId!, '')).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'subscriberId' }] });
    });

    it('retry — a step whose failure ended the walk (shouldStopOnFail) walks on from there once it is sent; failing again it stays error, ready for another retry', async () => {
      const { tidings, calls } = await engine('env-retry-stop', 2, [email('Hello', { shouldStopOnFail: true }), inApp('After the mail')]);
      const { transactionId } = await tidings.trigger({ name: 'notice', to: { subscriberId: 'bo', email: 'bo@example.com' } });
      await tidings.runDue();
      const statuses = async () => (await tidings.messages.byTransaction(transactionId!)).map((m) => `${m.channel}:${m.status}`);
      expect(await statuses()).toEqual(['email:error']);

      await tidings.retry(transactionId!, 'bo');
      await tidings.runDue();
      expect(await statuses()).toEqual(['email:error']);
      expect((await tidings.messages.byTransaction(transactionId!))[0]!.errorText).toBe('mail service refused send 2');

      await tidings.retry(transactionId!, 'bo');
      await tidings.runDue();
      expect(await statuses()).toEqual(['email:sent', 'in_app:sent']);
      expect(calls).toHaveLength(3);
    });

    it('retry — a send never answered is cancelled and kept as sent with its outcome unknown, never error; it is sent once more after an hour, and that answer takes its place', async () => {
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const sms = silentSms(1);
      const tidings = createTidings({ storage: get(), clock, environmentId: 'env-retry-unknown', providers: [sms.provider], providerTimeoutMs: 50 });
      await tidings.integrations.upsert({ name: 'Texter', providerId: 'texter', channel: 'sms', active: true, primary: true });
      await tidings.workflows.upsert({ name: 'Code', triggers: [{ identifier: 'code' }], steps: [{ template: { type: 'sms', content: 'Your code' } }, inApp('Sent you a code')] });
      const sent: string[] = [];
      tidings.events.on('message.sent', ({ message }) => sent.push(`${message.channel}:${message.providerMessageId ?? message.outcome ?? '-'}`));
      const { transactionId } = await tidings.trigger({ name: 'code', to: { subscriberId: 'di', phone: '+14155550100' } });
      await tidings.runDue();
      expect(sms.calls).toMatchObject([{ aborted: true }]);
      const [unknown] = await tidings.messages.byTransaction(transactionId!);
      expect(unknown).toMatchObject({ channel: 'sms', status: 'sent', outcome: 'unknown', phone: '+14155550100', providerId: 'texter', deliveredAt: [] });
      // The walk waits at the step: the in-app step after it is not made yet.
      expect(await tidings.messages.byTransaction(transactionId!)).toHaveLength(1);
      for (const minutes of [1, 10, 59]) {
        clock.set(new Date(Date.parse('2026-05-04T08:00:00.000Z') + minutes * 60_000));
        await tidings.runDue();
      }
      expect(sms.calls).toHaveLength(1);
      await expect(tidings.retry(transactionId!, 'di')).rejects.toMatchObject({ code: 'conflict' });

      clock.set('2026-05-04T09:00:00.000Z');
      await tidings.runDue();
      expect(sms.calls.map((c) => c.messageId)).toEqual([unknown!._id, unknown!._id]);
      expect(sms.calls[1]!.key).toBe(sms.calls[0]!.key);
      const after = await tidings.messages.byTransaction(transactionId!);
      expect(after.map((m) => `${m.channel}:${m.status}`)).toEqual(['sms:sent', 'in_app:sent']);
      expect(after[0]).toMatchObject({ _id: unknown!._id, providerMessageId: 'tx-2', deliveredAt: ['2026-05-04T09:00:00.000Z'] });
      expect(after[0]).not.toHaveProperty('outcome');
      expect(sent).toEqual(['sms:unknown', 'sms:tx-2', 'in_app:-']);
      const records = await tidings.explain(transactionId!, 'di');
      expect(records.map((r) => r.entries.map((e) => `${e.stepIndex}:${e.decision}`))).toEqual([['0:held'], ['0:delivered', '1:delivered']]);
    });

    it('retry — an email after a digest is sent again with the digest’s events', async () => {
      const { clock, tidings, calls } = await engine('env-retry-digest', 1, [{ template: { type: 'digest' }, metadata: { type: 'regular', amount: 5, unit: 'minutes' } }, email('{{ step.total_count }} updates')]);
      const first = await tidings.trigger({ name: 'notice', to: { subscriberId: 'cy', email: 'cy@example.com' } });
      await tidings.trigger({ name: 'notice', to: 'cy' });
      await tidings.runDue();
      clock.advance(5 * 60_000);
      await tidings.runDue();
      expect((await tidings.messages.byTransaction(first.transactionId!)).map((m) => m.status)).toEqual(['error']);

      await tidings.retry(first.transactionId!, 'cy');
      await tidings.runDue();
      expect((await tidings.messages.byTransaction(first.transactionId!)).map((m) => m.status)).toEqual(['sent']);
      expect(calls.map((c) => c.content)).toEqual(['2 updates', '2 updates']);
    });
  });
}
