import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import type { Provider, ProviderMessage } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { SuiteContext } from '../storage-under-test.js';

const PDF = Buffer.from('%PDF-1.4 invoice').toString('base64');

/** What an email step and its trigger add to the sending (addresses, headers, files), on every backend. */
export function emailSendingSuite({ get }: SuiteContext): void {
  describe('email sending over this storage', () => {
    function engine() {
      const sent: { provider: string; message: ProviderMessage }[] = [];
      const provider = (id: string, attachments: boolean): Provider => ({ id, channel: 'email', attachments, send: async (message) => (sent.push({ provider: id, message }), { id: `${id}-${sent.length}` }) });
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'sending', providers: [provider('plain', false), provider('files', true)] });
      return { tidings, sent };
    }

    it("email step — its Reply-To, Cc, Bcc and headers are rendered per subscriber and reach the provider, the trigger's headers and addresses over or after them; the subscriber's name goes with their address", async () => {
      const { tidings, sent } = engine();
      await tidings.integrations.upsert({ identifier: 'plain', providerId: 'plain', channel: 'email', primary: true });
      await tidings.workflows.upsert({
        name: 'Invoice',
        triggers: [{ identifier: 'invoice' }],
        steps: [{ template: { type: 'email', subject: 'Invoice', content: 'Hi', replyTo: 'billing+{{ subscriber.subscriberId }}@acme.test', cc: ['{{ payload.manager }}'], bcc: 'audit@acme.test', headers: { 'X-Invoice': '{{ payload.number }}', 'X-Campaign': 'step' } } }],
      });
      await tidings.trigger({ name: 'invoice', to: { subscriberId: 'ada', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@x.test' }, payload: { number: 7, manager: 'boss@acme.test' }, overrides: { email: { cc: ['team@acme.test', 'boss@acme.test'], headers: { 'X-Campaign': 'spring' } } } });
      await tidings.runDue();
      expect(sent).toHaveLength(1);
      const { message } = sent[0]!;
      expect(message.to).toMatchObject({ email: 'ada@x.test', name: 'Ada Lovelace' });
      expect(message.email).toMatchObject({ to: ['ada@x.test'], cc: ['boss@acme.test', 'team@acme.test'], bcc: ['audit@acme.test'], replyTo: 'billing+ada@acme.test' });
      expect(message.headers).toEqual({ 'X-Invoice': '7', 'X-Campaign': 'spring' });
      expect(message.attachments).toBeUndefined();
    });

    it('email step — a Reply-To that renders to no address fails the step, naming it; a header the message sets itself is refused when the workflow is saved', async () => {
      const { tidings, sent } = engine();
      await tidings.integrations.upsert({ identifier: 'plain', providerId: 'plain', channel: 'email', primary: true });
      await tidings.workflows.upsert({ name: 'Reply', triggers: [{ identifier: 'reply' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hi', replyTo: '{{ payload.replyTo }}' } }] });
      const result = await tidings.trigger({ name: 'reply', to: { subscriberId: 'ada', email: 'ada@x.test' }, payload: { replyTo: 'not an address' } });
      await tidings.runDue();
      expect(sent).toEqual([]);
      expect((await tidings.explain(result.transactionId!))[0]!.entries[0]).toMatchObject({ decision: 'failed', reason: expect.stringContaining('replyTo "{{ payload.replyTo }}" rendered "not an address", which is not an email address') });
      const refused = await tidings.workflows.upsert({ name: 'Bad', triggers: [{ identifier: 'bad' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hi', headers: { Bcc: 'spy@x.test' } } }] }).catch((e: unknown) => e);
      expect(isTidingsError(refused, 'validation_failed')).toBe(true);
      expect((refused as { issues: { path: string; message: string }[] }).issues).toEqual([{ path: 'steps[0].template.headers.Bcc', message: expect.stringContaining('is set by the message itself') }]);
      expect(await tidings.workflows.get('bad')).toBeNull();
    });

    it('payload.attachments — go to a provider that sends files; one that does not is passed over, and with none left the email is not sent, saying why; bad files are refused by field, nothing stored', async () => {
      const { tidings, sent } = engine();
      await tidings.integrations.upsert({ identifier: 'plain', providerId: 'plain', channel: 'email', primary: true });
      await tidings.integrations.upsert({ identifier: 'files', providerId: 'files', channel: 'email' });
      await tidings.workflows.upsert({ name: 'Invoice', triggers: [{ identifier: 'invoice' }], steps: [{ template: { type: 'email', subject: 'Invoice', content: 'Attached' } }] });
      const attachments = [{ file: PDF, name: 'invoice.pdf', mime: 'application/pdf' }, { file: PDF, name: 'copy.txt', channels: ['sms' as const] }];
      const withFiles = await tidings.trigger({ name: 'invoice', to: { subscriberId: 'ada', email: 'ada@x.test' }, payload: { attachments } });
      await tidings.trigger({ name: 'invoice', to: { subscriberId: 'bob', email: 'bob@x.test' } });
      await tidings.runDue();
      expect(sent.map((s) => [s.provider, s.message.to.email, s.message.attachments?.map((a) => [a.filename, a.contentType, a.disposition, Buffer.from(a.content).toString('base64')])])).toEqual([
        ['files', 'ada@x.test', [['invoice.pdf', 'application/pdf', 'attachment', PDF]]],
        ['plain', 'bob@x.test', undefined],
      ]);
      const [stored] = await tidings.messages.byTransaction(withFiles.transactionId!);
      expect(stored).toMatchObject({ status: 'sent', providerId: 'files' });
      // The message keeps the payload without the files.
      expect(stored!.payload).toEqual({});
      expect((await tidings.explain(withFiles.transactionId!))[0]!.entries[0]!.attempts).toEqual([
        { integration: 'plain', outcome: 'passed_over', reason: '"plain" does not send attachments, and the trigger attaches a file' },
        { integration: 'files', outcome: 'sent', reason: 'as files-1' },
      ]);

      await tidings.integrations.update((await tidings.integrations.list()).find((i) => i.identifier === 'files')!._id, { active: false });
      const stranded = await tidings.trigger({ name: 'invoice', to: { subscriberId: 'cy', email: 'cy@x.test' }, payload: { attachments } });
      await tidings.runDue();
      expect((await tidings.messages.byTransaction(stranded.transactionId!))[0]).toMatchObject({ status: 'warning', errorText: '"plain" does not send attachments, and the trigger attaches a file' });

      for (const [files, path] of [
        [[{ file: PDF }], 'payload.attachments[0].name'],
        [[{ file: PDF, name: 'a/b.pdf' }], 'payload.attachments[0].name'],
        [[{ file: PDF, name: 'a.pdf', mime: 'pdf' }], 'payload.attachments[0].mime'],
        [[{ file: PDF, name: 'a.pdf', size: 3 }], 'payload.attachments[0]'],
        ['invoice.pdf', 'payload.attachments'],
      ] as const) {
        const refused = await tidings.trigger({ name: 'invoice', to: 'dan', payload: { attachments: files as never } }).catch((e: unknown) => e);
        expect(isTidingsError(refused, 'validation_failed'), path).toBe(true);
        expect((refused as { issues: { path: string }[] }).issues.map((i) => i.path), path).toContain(path);
      }
      expect(await tidings.subscribers.get('dan')).toBeNull();
    });
  });
}
