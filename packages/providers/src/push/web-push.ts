import { ProviderError, type Credentials, type Provider } from '@tidings/core';
import webpush from 'web-push';
import { abandoned, answerError, serviceRequest } from '../http.js';
import { requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { settleDevices, type DeviceOutcome, type PushResult } from './device-outcomes.js';
import { pushStepExtras } from './step-extras.js';

/** How long a push service keeps a message for an offline browser, in seconds (a day). */
const TTL_SECONDS = 86_400;

/** A browser's push subscription (`PushSubscription.toJSON()`), stored as one of the subscriber's push device tokens. */
interface BrowserSubscription {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

function subscriptionOf(token: string): BrowserSubscription | null {
  try {
    const parsed = JSON.parse(token) as Partial<BrowserSubscription>;
    return typeof parsed.endpoint === 'string' && typeof parsed.keys?.p256dh === 'string' && typeof parsed.keys.auth === 'string' ? (parsed as BrowserSubscription) : null;
  } catch {
    return null;
  }
}

function vapidOf(credentials: Credentials) {
  const { apiKey: publicKey, secretKey: privateKey, from: subject } = credentials;
  if (!publicKey || !privateKey || !subject) {
    throw new ProviderError('web-push: the integration needs its VAPID keys (credentials.apiKey: the public key, credentials.secretKey: the private key) and a contact (credentials.from: mailto: or https: URL)', { retryable: false, code: 'missing_credentials' });
  }
  return { publicKey, privateKey, subject };
}

/**
 * Web Push with VAPID (RFC 8030, 8291, 8292), for browsers: each of the subscriber's push device
 * tokens is a browser subscription (`JSON.stringify(subscription)` of `pushManager.subscribe()`).
 * The payload `{ title, body, data, badge?, sound? }` is encrypted for the browser (aes128gcm) by
 * `web-push` and posted to the subscription's endpoint through the same address guard and timeout as
 * every provider. A subscription the push service says is gone (404, 410) comes back in
 * `invalidTokens` and is removed like a dead device token; 429 and 5xx are retried.
 */
export const webPushProvider = (options: ServiceProviderOptions = {}): Provider => ({
  id: 'web-push',
  channel: 'push',
  async send(message, credentials: Credentials, context): Promise<PushResult> {
    const signal = context?.signal;
    const tokens = message.to.deviceTokens ?? [];
    if (tokens.length === 0) throw new ProviderError('web-push: the recipient has no browser subscriptions', { retryable: false, code: 'missing_device_tokens' });
    const vapidDetails = vapidOf(credentials);
    const extras = pushStepExtras(message);
    const payload = JSON.stringify({
      ...(message.title !== undefined && { title: message.title }),
      body: message.content,
      data: extras.data ?? message.payload,
      ...(extras.badge !== undefined && { badge: extras.badge }),
      ...(extras.sound !== undefined && { sound: extras.sound }),
      ...message.overrides,
    });
    const outcomes: DeviceOutcome[] = [];
    for (const token of tokens) {
      if (signal?.aborted) throw abandoned(signal);
      const subscription = subscriptionOf(token);
      if (!subscription) {
        outcomes.push({ token, error: new ProviderError('web-push: a device token is not a browser push subscription ({ endpoint, keys: { p256dh, auth } })', { retryable: false, code: 'invalid_subscription' }), dead: true });
        continue;
      }
      const request = webpush.generateRequestDetails(subscription, payload, { vapidDetails, TTL: TTL_SECONDS, contentEncoding: 'aes128gcm' });
      try {
        const answer = await serviceRequest({ url: request.endpoint, headers: request.headers as Record<string, string>, body: request.body ?? undefined }, requestOptions(options, signal));
        if (answer.status >= 200 && answer.status < 300) {
          const location = answer.headers.location;
          outcomes.push({ token, id: typeof location === 'string' && location !== '' ? location : `web-push:${subscription.endpoint}` });
        } else {
          outcomes.push({ token, error: answerError('web-push', answer), dead: answer.status === 404 || answer.status === 410 });
        }
      } catch (error) {
        if (!(error instanceof ProviderError) || signal?.aborted) throw error;
        outcomes.push({ token, error, dead: false });
      }
    }
    return settleDevices(outcomes);
  },
});
