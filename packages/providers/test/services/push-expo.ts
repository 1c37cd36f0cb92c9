import { randomUUID } from 'node:crypto';
import { serviceServer, type ServiceCall, type ServiceReply } from './push-and-chat-server.js';

export interface ExpoFakeOptions {
  /** The access token Expo requires (enhanced push security); none: any request is taken. */
  readonly accessToken?: string;
  /** The push tokens Expo knows; any other gets a DeviceNotRegistered ticket. */
  readonly registered: readonly string[];
  /** How many first requests meet an outage (503). */
  readonly down?: number;
  /** How long each answer takes, in ms; `never`: Expo takes the request and never answers. @default 0 */
  readonly answerAfter?: number | 'never';
}

const requestError = (status: number, code: string, message: string): ServiceReply => ({ status, json: { errors: [{ code, message }] } });

/**
 * Plays Expo's push API (`POST /--/api/v2/push/send`): checks the access token when one is set and the
 * JSON array of messages, answers 200 with one ticket per message in order: `{ status: 'ok', id }`,
 * or `{ status: 'error', details: { error: 'DeviceNotRegistered' } }` for an unknown token.
 */
export async function expoFake(options: ExpoFakeOptions) {
  const tickets: { to: string; id: string }[] = [];
  let requests = 0;
  const answer = (call: ServiceCall): ServiceReply => {
    if (call.method !== 'POST' || call.path !== '/--/api/v2/push/send') return requestError(404, 'NOT_FOUND', 'Not found');
    if (++requests <= (options.down ?? 0)) return requestError(503, 'INTERNAL_SERVER_ERROR', 'An unknown error occurred.');
    if (options.accessToken && call.headers.authorization !== `Bearer ${options.accessToken}`) {
      return { status: 401, json: { error: 'invalid_token', error_description: 'The bearer token is invalid' } };
    }
    if (!call.headers['content-type']?.startsWith('application/json')) return requestError(400, 'VALIDATION_ERROR', '"value" must be of type object.');
    const messages: unknown = call.json;
    if (!Array.isArray(messages) || messages.some((m) => typeof m?.to !== 'string')) return requestError(400, 'VALIDATION_ERROR', '"to" is required.');
    if (messages.length > 100) return requestError(400, 'PUSH_TOO_MANY_NOTIFICATIONS', 'You are trying to send more than 100 push notifications in one request.');
    const data = messages.map((m: { to: string }) => {
      if (!options.registered.includes(m.to)) {
        return { status: 'error', message: `"${m.to}" is not a registered push notification recipient`, details: { error: 'DeviceNotRegistered', expoPushToken: m.to } };
      }
      const id = randomUUID();
      tickets.push({ to: m.to, id });
      return { status: 'ok', id };
    });
    return { status: 200, json: { data } };
  };
  const after = options.answerAfter ?? 0;
  const server = await serviceServer(async (call) => {
    if (after === 'never') return new Promise<never>(() => {});
    if (after > 0) await new Promise((resolve) => setTimeout(resolve, after));
    return answer(call);
  });
  return { ...server, tickets };
}
