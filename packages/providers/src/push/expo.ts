import { pushStepExtras } from './step-extras.js';
import { ProviderError, type Credentials, type Provider } from '@tidings/core';
import { abandoned, answerError, answerJson, atBase, serviceRequest } from '../http.js';
import { baseUrlOf, requestOptions, type ServiceProviderOptions } from '../service-options.js';
import { settleDevices, type DeviceOutcome, type PushResult } from './device-outcomes.js';

const SEND_URL = 'https://exp.host/--/api/v2/push/send';
/** Expo takes at most 100 messages per request. */
const MAX_MESSAGES = 100;
/** Ticket errors that say nothing against the token and may pass on a later try. */
const TRANSIENT_TICKET_ERRORS = new Set(['MessageRateExceeded']);

type Ticket = { status?: unknown; id?: unknown; details?: { error?: unknown } };

/** Expo's own code for a failed request: `{ errors: [{ code }] }`, or OAuth's `{ error }` for a bad access token. */
function requestErrorCode(json: unknown): string | undefined {
  const body = json as { errors?: { code?: unknown }[]; error?: unknown } | undefined;
  const code = body?.errors?.[0]?.code ?? body?.error;
  return typeof code === 'string' ? code : undefined;
}

function ticketOutcome(token: string, ticket: Ticket | undefined): DeviceOutcome {
  if (ticket?.status === 'ok' && typeof ticket.id === 'string') return { token, id: ticket.id };
  const code = typeof ticket?.details?.error === 'string' ? ticket.details.error : 'unexpected_ticket';
  const retryable = TRANSIENT_TICKET_ERRORS.has(code);
  return { token, error: new ProviderError(`expo refused the message (${code})`, { retryable, code }), dead: code === 'DeviceNotRegistered' };
}

/**
 * Expo push: `POST https://exp.host/--/api/v2/push/send`, a JSON array with one message
 * `{ to, title, body, data }` per device token (the trigger's `overrides.expo` added to each), and
 * `Authorization: Bearer <apiKey>` when the integration has one (Expo asks for it only with enhanced
 * push security). Expo answers 200 with a ticket per message: the message is sent when one device
 * took it; the tokens Expo calls `DeviceNotRegistered` come back as `invalidTokens`. When every
 * device refused, the error code is Expo's (e.g. `DeviceNotRegistered`). The chunks go one after
 * another; once the send's signal aborts (the engine stopped waiting), the request in flight is
 * aborted and no further chunk is sent.
 */
export const expoProvider = (options: ServiceProviderOptions = {}): Provider => ({
  id: 'expo',
  channel: 'push',
  async send(message, credentials: Credentials, context): Promise<PushResult> {
    const signal = context?.signal;
    const extras = pushStepExtras(message);
    const tokens = message.to.deviceTokens ?? [];
    if (tokens.length === 0) throw new ProviderError('expo: the recipient has no device tokens', { retryable: false, code: 'missing_device_tokens' });
    const url = atBase(SEND_URL, baseUrlOf(credentials, options));
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(credentials.apiKey && { authorization: `Bearer ${credentials.apiKey}` }),
    };
    /** One request for up to 100 tokens: a ticket each, or a ProviderError thrown for the whole request. */
    const post = async (chunk: readonly string[]): Promise<DeviceOutcome[]> => {
      const body = chunk.map((to) => ({ to, ...(message.title !== undefined && { title: message.title }), body: message.content, data: extras.data ?? message.payload, ...(extras.sound !== undefined && { sound: extras.sound }), ...(extras.badge !== undefined && { badge: extras.badge }), ...message.overrides }));
      const answer = await serviceRequest({ url, headers, body: JSON.stringify(body) }, requestOptions(options, signal));
      const json = answerJson(answer) as { data?: Ticket[] } | undefined;
      if (answer.status < 200 || answer.status >= 300) throw answerError('expo', answer, requestErrorCode(json));
      const tickets = Array.isArray(json?.data) ? json.data : [];
      return chunk.map((token, i) => ticketOutcome(token, tickets[i]));
    };
    const outcomes: DeviceOutcome[] = [];
    for (let start = 0; start < tokens.length; start += MAX_MESSAGES) {
      if (signal?.aborted) throw abandoned(signal);
      const chunk = tokens.slice(start, start + MAX_MESSAGES);
      try {
        outcomes.push(...(await post(chunk)));
      } catch (error) {
        // Once a chunk went out, a later one failing only fails its own tokens; an abandoned send stops.
        if (!(error instanceof ProviderError) || outcomes.length === 0 || signal?.aborted) throw error;
        outcomes.push(...chunk.map((token) => ({ token, error, dead: false })));
      }
    }
    return settleDevices(outcomes);
  },
});

