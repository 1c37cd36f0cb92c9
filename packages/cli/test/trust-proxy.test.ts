/**
 * The URL a Twilio status callback is checked against: the request's own unless the app was told it
 * sits behind a proxy (`trustProxy`, `tidings serve --trust-proxy`), and only then the scheme and host
 * of `X-Forwarded-Proto` / `X-Forwarded-Host`, which any client can otherwise send.
 */
import { createHmac } from 'node:crypto';
import { createTidings } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { twilioProvider } from '@tidings/providers';
import { describe, expect, it } from 'vitest';
import { readArguments } from '../src/cli.js';
import { createHttpApp } from '@tidings/http';

const SID = 'AC00000000000000000000000000000001';
const TOKEN = 'twilio-auth-token';
const fields = { AccountSid: SID, MessageSid: 'SM00000000000000000000000000000001', MessageStatus: 'delivered', To: '+15550100', From: '+15550001' };

/** Twilio's request signature: base64 HMAC-SHA1 with the auth token over the URL and the fields sorted by name. */
const twilioSignature = (url: string) =>
  createHmac('sha1', TOKEN)
    .update(url + Object.keys(fields).sort().map((name) => name + fields[name as keyof typeof fields]).join(''))
    .digest('base64');

async function app(trustProxy?: boolean) {
  const tidings = createTidings({ storage: memoryStorage(), providers: [twilioProvider()] });
  const http = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }], ...(trustProxy !== undefined && { trustProxy }) });
  const created = await http.request('/v1/integrations', {
    method: 'POST',
    headers: { authorization: 'ApiKey k', 'content-type': 'application/json' },
    body: JSON.stringify({ providerId: 'twilio', channel: 'sms', active: true, check: false, credentials: { accountSid: SID, token: TOKEN, from: '+15550001' } }),
  });
  expect(created.status).toBe(201);
  const path = `/v1/webhooks/${tidings.environmentId}/${((await created.json()) as { data: { _id: string } }).data._id}`;
  /** Posts the callback to the app at `http://tidings.internal:3000` (what a proxy forwards to), signed over `signedUrl`. */
  const post = (signedUrl: string, headers: Record<string, string> = {}) =>
    http.request(`http://tidings.internal:3000${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(signedUrl), ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  return { path, post };
}

describe('X-Forwarded-Proto and X-Forwarded-Host', () => {
  it('are ignored by default: a signature made for another host is a 401 whatever the client forwards; one for the URL called is taken', async () => {
    const { path, post } = await app();
    const elsewhere = `https://other-app.example${path}`;
    expect((await post(elsewhere, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'other-app.example' })).status).toBe(401);
    expect((await post(`http://tidings.internal:3000${path}`, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'other-app.example' })).status).toBe(200);
  });

  it('rebuild the signed URL with trustProxy; a scheme other than http or https is ignored', async () => {
    const { path, post } = await app(true);
    const public_ = `https://notify.example.com${path}`;
    expect((await post(public_, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'notify.example.com' })).status).toBe(200);
    // The first of a list (the proxy nearest the client), in any case.
    expect((await post(public_, { 'x-forwarded-proto': 'HTTPS, http', 'x-forwarded-host': 'notify.example.com, tidings.internal:3000' })).status).toBe(200);
    expect((await post(`javascript://notify.example.com${path}`, { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'notify.example.com' })).status).toBe(401);
    // Without the headers, the request's own URL.
    expect((await post(`http://tidings.internal:3000${path}`)).status).toBe(200);
  });

  it('tidings serve --trust-proxy (or TIDINGS_TRUST_PROXY=true) turns it on; off by default', () => {
    expect(readArguments([], {}).options.trustProxy).toBeUndefined();
    expect(readArguments(['--trust-proxy'], {}).options.trustProxy).toBe(true);
    expect(readArguments([], { TIDINGS_TRUST_PROXY: 'true' }).options.trustProxy).toBe(true);
    expect(readArguments([], { TIDINGS_TRUST_PROXY: 'off' }).options.trustProxy).toBeUndefined();
  });
});
