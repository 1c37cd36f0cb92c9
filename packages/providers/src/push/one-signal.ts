import { pushStepExtras } from './step-extras.js';
import { ProviderError, type Credentials, type Provider } from '@tidings/core';
import { answerError, answerJson, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';
import type { PushResult } from './device-outcomes.js';

const NOTIFICATIONS_URL = 'https://onesignal.com/api/v1/notifications';


type Answer = { id?: unknown; errors?: unknown };

/** OneSignal's newer App API keys (`os_v2_…`) go with the `Key` scheme; legacy REST keys with `Basic`. */
const authorization = (apiKey: string) => (apiKey.startsWith('os_v2_') ? `Key ${apiKey}` : `Basic ${apiKey}`);

const invalidPlayerIds = (errors: unknown): string[] => {
  const ids = (errors as { invalid_player_ids?: unknown } | null | undefined)?.invalid_player_ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
};

/**
 * OneSignal push: `POST https://onesignal.com/api/v1/notifications` (the endpoint Novu uses),
 * `Authorization: Basic <apiKey>` (`Key` for `os_v2_` keys), one JSON notification
 * `{ app_id, include_player_ids, headings, contents, data }` for all the subscriber's device tokens
 * (the trigger's `overrides['one-signal']` added). OneSignal answers 200 `{ id }`, naming the dead
 * ids in `errors.invalid_player_ids` (returned as `invalidTokens`); an empty `id` means nobody got it.
 * Every send carries the engine's idempotency key (a UUID) as OneSignal's `idempotency_key`: OneSignal
 * keeps it 30 days and sends no second notification for a key it has seen, so a send that timed out
 * is safely tried again.
 */
export const oneSignalProvider = (options: ServiceProviderOptions = {}): Provider => ({
  id: 'one-signal',
  channel: 'push',
  idempotent: true,
  async send(message, credentials: Credentials, context): Promise<PushResult> {
    const { apiKey, applicationId } = credentials;
    const missing = [!applicationId && 'applicationId', !apiKey && 'apiKey'].filter(Boolean);
    if (!apiKey || !applicationId) throw new ProviderError(`one-signal: the integration has no ${missing.join(', ')} credential`, { retryable: false, code: 'missing_credentials' });
    const tokens = message.to.deviceTokens ?? [];
    if (tokens.length === 0) throw new ProviderError('one-signal: the recipient has no device tokens', { retryable: false, code: 'missing_device_tokens' });
    const extras = pushStepExtras(message);
    const notification = {
      app_id: applicationId,
      include_player_ids: tokens,
      ...(message.title !== undefined && { headings: { en: message.title } }),
      contents: { en: message.content },
      data: extras.data ?? message.payload,
      ...(extras.sound !== undefined && { ios_sound: extras.sound }),
      ...(extras.badge !== undefined && { ios_badgeType: 'SetTo', ios_badgeCount: extras.badge }),
      ...(context?.idempotencyKey && { idempotency_key: context.idempotencyKey }),
      ...message.overrides,
    };
    const answer = await serviceRequest(
      {
        url: atBase(NOTIFICATIONS_URL, baseUrlOf(credentials, options)),
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: authorization(apiKey) },
        body: JSON.stringify(notification),
      },
      requestOptions(options, context?.signal),
    );
    // OneSignal's errors are sentences, not codes: the status says enough.
    if (answer.status < 200 || answer.status >= 300) throw answerError('one-signal', answer);
    const json = answerJson(answer) as Answer | undefined;
    const invalidTokens = invalidPlayerIds(json?.errors);
    if (typeof json?.id === 'string' && json.id !== '') return { id: json.id, ...(invalidTokens.length > 0 && { invalidTokens }) };
    // 200 with an empty id: no device was subscribed ("All included players are not subscribed").
    throw new ProviderError('one-signal sent to no device: none of the subscriber’s players is subscribed', {
      retryable: false,
      status: answer.status,
      code: 'no_subscribed_players',
      ...(invalidTokens.length > 0 && { invalidTokens }),
    });
  },
});
