/**
 * Provider status callbacks and the suppression list over HTTP, through `tidings serve`: an SMS goes
 * out through a local Twilio, Twilio's status callback (signed with the account's auth token, as
 * Twilio documents) marks it undelivered for good and suppresses the number; a forged one is a 401
 * and changes nothing; the number is taken off the list over HTTP and is sent to again.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeTwilio } from '../../providers/test/services/sms-twilio.js';
import { serve } from '../../cli/src/serve.js';
import { eventually } from './eventually.js';

const KEY = 'tid_status_key';
const SID = 'AC00000000000000000000000000000001';
const TOKEN = 'twilio-auth-token';
const dir = mkdtempSync(join(tmpdir(), 'tidings-status-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Twilio's request signature: base64 HMAC-SHA1 with the auth token over the URL and the fields sorted by name. */
const twilioSignature = (url: string, fields: Record<string, string>) =>
  createHmac('sha1', TOKEN)
    .update(url + Object.keys(fields).sort().map((name) => name + fields[name]).join(''))
    .digest('base64');

describe('status callbacks and the suppression list over HTTP', () => {
  it('a Twilio callback marks the SMS undelivered and suppresses the number; forged ones are 401; the number is taken off the list and sent to again', async () => {
    const twilio = await fakeTwilio({ sid: SID, token: TOKEN });
    const server = await serve({ port: 0, db: join(dir, 'status.db'), apiKey: KEY, graceMs: 500, webhookAllow: ['127.0.0.1'] });
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, { method, headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
    };
    try {
      const integration = await api('POST', '/v1/integrations', { providerId: 'twilio', channel: 'sms', active: true, check: false, credentials: { accountSid: SID, token: TOKEN, from: '+15550001', baseUrl: twilio.url } });
      expect(integration.status).toBe(201);
      await server.tidings.workflows.upsert({ name: 'Code', triggers: [{ identifier: 'code' }], steps: [{ template: { type: 'sms', content: 'Your code is {{ payload.code }}' } }] });
      const send = async () => {
        const { body } = await api('POST', '/v1/events/trigger', { name: 'code', to: { subscriberId: 'ada', phone: '+15550100' }, payload: { code: '4821' } });
        return eventually(async () => {
          // The message is stored by the commit that follows the send, so once there it is final.
          const [message] = await server.tidings.messages.byTransaction(body.data.transactionId);
          return message;
        }, 'the SMS');
      };
      const sent = await send();
      expect(sent).toMatchObject({ status: 'sent', providerId: 'twilio', providerMessageId: twilio.messages[0]!.sid });

      const url = `${server.url}/v1/webhooks/${server.tidings.environmentId}/${integration.body.data._id}`;
      const fields = { AccountSid: SID, MessageSid: twilio.messages[0]!.sid, MessageStatus: 'undelivered', ErrorCode: '30006', To: '+15550100', From: '+15550001' };
      const post = (signature: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(fields).toString() });

      expect((await post(twilioSignature(url, { ...fields, MessageStatus: 'delivered' }))).status).toBe(401);
      expect((await post('')).status).toBe(401);
      expect((await server.tidings.messages.byTransaction(sent.transactionId))[0]!.delivery).toBeUndefined();

      const accepted = await post(twilioSignature(url, fields));
      expect(accepted.status).toBe(200);
      expect(await accepted.json()).toEqual({ data: { updated: 1, held: 0 } });
      expect((await post(twilioSignature(url, fields))).status).toBe(200);
      const [failed] = await server.tidings.messages.byTransaction(sent.transactionId);
      expect(failed).toMatchObject({ status: 'error', errorId: 'failed', delivery: { state: 'failed', history: [{ state: 'failed', permanent: true }] } });

      const listed = await api('GET', '/v1/suppressions?channel=sms');
      expect(listed).toMatchObject({ status: 200, body: { data: [{ channel: 'sms', address: '+15550100', reason: 'failed', messageId: sent._id }], nextCursor: null } });
      expect(await send()).toMatchObject({ status: 'warning', errorText: expect.stringContaining('+15550100 is on the suppression list') });
      expect(twilio.messages).toHaveLength(1);

      expect((await api('GET', '/v1/suppressions?limit=0')).status).toBe(422);
      expect((await api('POST', '/v1/suppressions', { channel: 'fax', address: '+15550199' })).status).toBe(422);
      expect((await api('DELETE', `/v1/suppressions/sms/${encodeURIComponent('+15550100')}`)).status).toBe(200);
      expect((await api('DELETE', `/v1/suppressions/sms/${encodeURIComponent('+15550100')}`)).status).toBe(404);
      expect(await send()).toMatchObject({ status: 'sent' });
      expect(twilio.messages).toHaveLength(2);
    } finally {
      await server.close();
      await twilio.close();
    }
  });
});
