import { describe, expect, it } from 'vitest';
import { TidingsError, type Provider, type ProviderMessage } from '../src/index.js';
import { testEngine } from './helpers.js';

/** An engine with one recording provider per channel given, each an active primary integration. */
async function recording(...providers: { id: string; channel: 'email' | 'sms' }[]) {
  const sent: ProviderMessage[] = [];
  const made: Provider[] = providers.map(({ id, channel }) => ({ id, channel, send: async (message) => (sent.push(message), { id: `${id}-${sent.length}` }) }));
  const { tidings } = testEngine({ providers: made });
  for (const { id, channel } of providers) await tidings.integrations.upsert({ providerId: id, channel, credentials: { from: 'noreply@tidings.test' }, active: true, primary: true });
  await tidings.workflows.upsert({ name: 'm', triggers: [{ identifier: 'm' }], steps: providers.map(({ channel }) => ({ template: { type: channel, subject: 'Hi', content: 'Hello' } })) });
  const ada = { subscriberId: 'ada', email: 'ada@example.test', phone: '+15550100' };
  return { tidings, sent, ada };
}

describe('overrides.email', () => {
  it('reaches the provider message: to adds to the subscriber, cc, bcc, from, senderName and replyTo as given; an address is sent to once', async () => {
    const { tidings, sent, ada } = await recording({ id: 'sendgrid', channel: 'email' });
    const result = await tidings.trigger({
      name: 'm',
      to: ada,
      overrides: {
        email: {
          to: ['team@example.test', 'ADA@example.test'],
          cc: ['boss@example.test', 'team@example.test'],
          bcc: 'audit@example.test',
          from: 'billing@tidings.test',
          senderName: 'Billing',
          replyTo: 'help@tidings.test',
          customData: { invoice: 7 },
        },
      },
    });
    await tidings.runDue();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.email).toEqual({
      to: ['ada@example.test', 'team@example.test'],
      cc: ['boss@example.test'],
      bcc: ['audit@example.test'],
      from: 'billing@tidings.test',
      senderName: 'Billing',
      replyTo: 'help@tidings.test',
    });
    expect(sent[0]!.to.email).toBe('ada@example.test');
    // The message keeps the subscriber's address, as Novu's does.
    expect((await tidings.messages.byTransaction(result.transactionId!))[0]).toMatchObject({ status: 'sent', email: 'ada@example.test' });
  });

  it('without overrides an email goes to the subscriber alone', async () => {
    const { tidings, sent, ada } = await recording({ id: 'sendgrid', channel: 'email' });
    await tidings.trigger({ name: 'm', to: ada });
    await tidings.runDue();
    expect(sent[0]!.email).toEqual({ to: ['ada@example.test'], cc: [], bcc: [] });
    expect(sent[0]!.overrides).toEqual({});
  });

  it('overrides[providerId] to, cc, bcc, from and senderName win over overrides.email (Novu merges the two); replyTo is read from overrides.email only; the rest stays the provider’s', async () => {
    const { tidings, sent, ada } = await recording({ id: 'sendgrid', channel: 'email' });
    await tidings.trigger({
      name: 'm',
      to: ada,
      overrides: {
        email: { cc: ['email-cc@example.test'], from: 'email@tidings.test', replyTo: 'reply@tidings.test' },
        sendgrid: { cc: ['sg-cc@example.test'], senderName: 'SG', replyTo: 'ignored@tidings.test', ip_pool_name: 'marketing' },
      },
    });
    await tidings.runDue();
    expect(sent[0]!.email).toEqual({ to: ['ada@example.test'], cc: ['sg-cc@example.test'], bcc: [], from: 'email@tidings.test', senderName: 'SG', replyTo: 'reply@tidings.test' });
    expect(sent[0]!.overrides).toEqual({ replyTo: 'ignored@tidings.test', ip_pool_name: 'marketing' });
  });

  it('a bad address is refused at trigger time, naming the field; a bulk trigger answers that event with the error', async () => {
    const { tidings, sent, ada } = await recording({ id: 'sendgrid', channel: 'email' });
    const refusal = await tidings.trigger({ name: 'm', to: ada, overrides: { email: { cc: ['boss@example.test', 'not an address'] } } }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TidingsError);
    expect((refusal as TidingsError).code).toBe('validation_failed');
    expect((refusal as TidingsError).message).toContain('overrides.email.cc[1]: must be an email address');
    for (const [overrides, field] of [
      [{ email: { to: 'x' } }, 'overrides.email.to'],
      [{ email: { from: 'Billing <billing@tidings.test>' } }, 'overrides.email.from'],
      [{ email: { replyTo: 42 } }, 'overrides.email.replyTo'],
      [{ email: { bcc: [{ email: 'a@example.test' }] } }, 'overrides.email.bcc'],
      [{ email: 'team@example.test' }, 'overrides.email'],
    ] as const) {
      await expect(tidings.trigger({ name: 'm', to: ada, overrides })).rejects.toThrow(field);
    }
    const [bad, good] = await tidings.triggerBulk([
      { name: 'm', to: ada, overrides: { email: { bcc: ['nope'] } } },
      { name: 'm', to: ada, overrides: { email: { bcc: ['audit@example.test'] } } },
    ]);
    expect(bad).toMatchObject({ acknowledged: true, status: 'error', error: [expect.stringContaining('overrides.email.bcc[0]')] });
    expect(good).toMatchObject({ status: 'processed' });
    await tidings.runDue();
    expect(sent.map((m) => m.email?.bcc)).toEqual([['audit@example.test']]);
  });

  it('a bad address in overrides[providerId] fails the email step for good, naming the field; nothing is sent', async () => {
    const { tidings, sent, ada } = await recording({ id: 'sendgrid', channel: 'email' });
    const result = await tidings.trigger({ name: 'm', to: ada, overrides: { sendgrid: { bcc: ['nope'] } } });
    await tidings.runDue();
    expect(sent).toHaveLength(0);
    expect((await tidings.messages.byTransaction(result.transactionId!))[0]).toMatchObject({
      status: 'error',
      errorId: 'invalid_overrides',
      errorText: expect.stringContaining('overrides.sendgrid.bcc[0]: must be an email address'),
    });
  });

  it('other channels keep their provider overrides whole (an SMS `from` is a phone number)', async () => {
    const { tidings, sent, ada } = await recording({ id: 'twilio', channel: 'sms' });
    await tidings.trigger({ name: 'm', to: ada, overrides: { twilio: { from: '+15550199', to: '+15550100' } } });
    await tidings.runDue();
    expect(sent[0]!.overrides).toEqual({ from: '+15550199', to: '+15550100' });
    expect(sent[0]!.email).toBeUndefined();
  });
});
