import { ProviderError, type Provider } from '@tidings/core';
import { answerError, answerJson, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';

const SEND_MESSAGE_URL = 'https://api.telegram.org/bot{token}/sendMessage';
/** Telegram refuses longer texts. */
const MAX_TEXT = 4096;

type Answer = { ok?: unknown; result?: { message_id?: unknown }; error_code?: unknown; parameters?: { retry_after?: unknown } };

/**
 * Telegram Bot API: `POST https://api.telegram.org/bot{apiToken}/sendMessage` with JSON
 * `{ chat_id, text }` (the trigger's `overrides.telegram` added, e.g. `parse_mode`). The chat id is the
 * subscriber's chat channel setting (`to.channel`). Telegram answers `{ ok: true, result: { message_id } }`,
 * or `{ ok: false, error_code, description }`: its `error_code` becomes the errorId (400 chat not found,
 * 401 bad token, 403 bot blocked), and a 429's `parameters.retry_after` sets when to try again.
 */
export const telegramProvider = (options: ServiceProviderOptions = {}): Provider => ({
  id: 'telegram',
  channel: 'chat',
  chatAddress: 'chatId',
  async send(message, credentials, context) {
    const botToken = credentials.apiToken;
    if (!botToken) throw new ProviderError('telegram: the integration has no apiToken credential (the bot token)', { retryable: false, code: 'missing_credentials' });
    const chatId = message.to.channel;
    if (!chatId) throw new ProviderError('telegram: the recipient has no chat id', { retryable: false, code: 'missing_chat_id' });
    // The token sits in the path: keep its colon, escape anything that could leave the path segment.
    const url = atBase(SEND_MESSAGE_URL.replace('{token}', encodeURIComponent(botToken).replace(/%3A/gi, ':')), baseUrlOf(credentials, options));
    const answer = await serviceRequest(
      {
        url,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ chat_id: chatId, text: message.content.slice(0, MAX_TEXT), ...message.overrides }),
      },
      requestOptions(options, context?.signal),
    );
    const json = answerJson(answer) as Answer | undefined;
    const messageId = json?.result?.message_id;
    if (answer.status >= 200 && answer.status < 300 && json?.ok === true && (typeof messageId === 'number' || typeof messageId === 'string')) return { id: String(messageId) };
    const code = typeof json?.error_code === 'number' ? String(json.error_code) : undefined;
    const error = answerError('telegram', answer, code);
    const retryAfter = json?.parameters?.retry_after;
    throw typeof retryAfter === 'number' && error.retryable ? new ProviderError(error.message, { ...error.options, retryAfterMs: retryAfter * 1000 }) : error;
  },
});
