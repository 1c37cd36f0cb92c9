/**
 * Integrations made through Novu's own SDK (`@novu/api` 3.19.1, pinned) with Novu's provider ids and
 * credential names send through Tidings' providers for those services: Twilio, SendGrid and FCM,
 * each played by a local server that checks the requests as the service does.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Novu } from '@novu/api';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeSendgrid } from '../../providers/test/services/email-sendgrid.js';
import { fcmFake, GOOGLE_TOKEN_URI } from '../../providers/test/services/push-fcm.js';
import { fakeTwilio } from '../../providers/test/services/sms-twilio.js';
import { serve } from '../../cli/src/serve.js';
import { eventually } from './eventually.js';

const KEY = 'tid_providers_key';
const dir = mkdtempSync(join(tmpdir(), 'tidings-novu-providers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('integrations created with @novu/api, in Novu’s credential names', () => {
  it('twilio, sendgrid and fcm: a trigger sends through each service, and each message names its provider and the service’s id', async () => {
    const twilio = await fakeTwilio({ sid: 'AC0123456789abcdef0123456789abcdef', token: 'twilio-auth-token' });
    const sendgrid = await fakeSendgrid({ apiKey: 'SG.novu-created', verifiedSenders: ['alerts@example.com'] });
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const fcm = await fcmFake({ projectId: 'tidings-novu', clientEmail: 'push@tidings-novu.iam.gserviceaccount.com', keyId: 'k1', publicKey: keys.publicKey, registered: ['device-1'] });
    const server = await serve({ port: 0, db: join(dir, 'providers.db'), apiKey: KEY, graceMs: 500, webhookAllow: ['127.0.0.1'] });
    try {
      const novu = new Novu({ secretKey: KEY, serverURL: server.url, retryConfig: { strategy: 'none' }, timeoutMs: 10_000 });
      const serviceAccount = JSON.stringify({
        type: 'service_account',
        project_id: 'tidings-novu',
        private_key_id: 'k1',
        private_key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }),
        client_email: 'push@tidings-novu.iam.gserviceaccount.com',
        token_uri: GOOGLE_TOKEN_URI,
      });
      await novu.integrations.create({ providerId: 'twilio', channel: 'sms', active: true, check: false, credentials: { accountSid: 'AC0123456789abcdef0123456789abcdef', token: 'twilio-auth-token', from: '+15550001', baseUrl: twilio.url } });
      await novu.integrations.create({ providerId: 'sendgrid', channel: 'email', active: true, check: false, credentials: { apiKey: 'SG.novu-created', from: 'alerts@example.com', senderName: 'Alerts', baseUrl: sendgrid.url } });
      await novu.integrations.create({ providerId: 'fcm', channel: 'push', active: true, check: false, credentials: { serviceAccount, baseUrl: fcm.url } });

      await server.tidings.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com', phone: '+15550100' });
      // Device tokens as a Novu app registers them: replaced, appended, then one provider's removed.
      await novu.subscribers.credentials.update({ providerId: 'fcm', credentials: { deviceTokens: ['device-old'] } }, 'ada');
      await novu.subscribers.credentials.update({ providerId: 'fcm', credentials: { deviceTokens: ['device-1'] } }, 'ada');
      await novu.subscribers.credentials.append({ providerId: 'expo', credentials: { deviceTokens: ['ExponentPushToken[a]'] } }, 'ada');
      const { result: appended } = await novu.subscribers.credentials.append({ providerId: 'expo', credentials: { deviceTokens: ['ExponentPushToken[b]'] } }, 'ada');
      expect(appended.channels?.map((c) => [c.providerId, c.credentials.deviceTokens])).toEqual([['fcm', ['device-1']], ['expo', ['ExponentPushToken[a]', 'ExponentPushToken[b]']]]);
      await novu.subscribers.credentials.delete('ada', 'expo');
      expect((await server.tidings.subscribers.get('ada'))!.channels.map((c) => c.providerId)).toEqual(['fcm']);
      await expect(novu.subscribers.credentials.update({ providerId: 'fcm', credentials: { deviceTokens: ['x'] } }, 'nobody')).rejects.toMatchObject({ statusCode: 404 });
      const refused = await fetch(`${server.url}/v1/subscribers/ada/credentials`, { method: 'PUT', headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ providerId: 'pigeon', credentials: { deviceTokens: ['x'] } }) });
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain('providerId');
      expect((await server.tidings.subscribers.get('ada'))!.channels.map((c) => c.credentials.deviceTokens)).toEqual([['device-1']]);
      await novu.workflows.create({
        name: 'Outage',
        workflowId: 'outage',
        active: true,
        steps: [
          { name: 'Email', type: 'email', controlValues: { subject: 'Outage on {{ payload.host }}', body: '<p>{{ payload.host }} is down.</p>' } },
          { name: 'SMS', type: 'sms', controlValues: { body: '{{ payload.host }} is down' } },
          { name: 'Push', type: 'push', controlValues: { subject: 'Outage', body: '{{ payload.host }} is down' } },
        ],
      });

      const { result } = await novu.trigger({ workflowId: 'outage', to: 'ada', payload: { host: 'db1' } });
      const messages = await eventually(async () => {
        const stored = await server.tidings.messages.byTransaction(result.transactionId!);
        return stored.length === 3 && stored.every((m) => m.status !== 'sent' || m.providerId) ? stored : undefined;
      }, 'three messages');
      const byChannel = Object.fromEntries(messages.map((m) => [m.channel, m]));

      expect(twilio.messages).toMatchObject([{ to: '+15550100', from: '+15550001', body: 'db1 is down' }]);
      expect(sendgrid.accepted).toMatchObject([{ from: { email: 'alerts@example.com', name: 'Alerts' }, subject: 'Outage on db1', personalizations: [{ to: [{ email: 'ada@example.com' }] }] }]);
      expect(fcm.sent.map((s) => s.message)).toEqual([{ token: 'device-1', notification: { title: 'Outage', body: 'db1 is down' } }]);
      expect(byChannel).toMatchObject({ sms: { status: 'sent', providerId: 'twilio' }, email: { status: 'sent', providerId: 'sendgrid' }, push: { status: 'sent', providerId: 'fcm' } });
      const explained = JSON.stringify(await server.tidings.explain(result.transactionId!));
      expect(explained).toContain(`as ${twilio.messages[0]!.sid}`);
      expect(explained).toContain(`as ${sendgrid.accepted[0]!.id}`);
    } finally {
      await server.close();
      await Promise.all([twilio.close(), sendgrid.close(), fcm.close()]);
    }
  });
});
