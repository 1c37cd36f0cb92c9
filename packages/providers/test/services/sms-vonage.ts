import { randomBytes } from 'node:crypto';
import { fakeServiceServer, json, type Reply } from './sms-http.js';

/** A message the fake Vonage accepted. */
export interface VonageMessage {
  readonly messageId: string;
  readonly from: string;
  readonly to: string;
  readonly text: string;
  readonly type: string | null;
}

/** Vonage's SMS answer: HTTP 200 whatever happened, the outcome in `messages[0].status`. */
export const vonageAnswer = (message: Record<string, string>): Reply => json(200, { 'message-count': '1', messages: [message] });

/** Status 1: the account sent faster than its throughput limit. */
export const vonageThrottled = vonageAnswer({ status: '1', 'error-text': 'Throughput Rate Exceeded - please wait [ 1000 ] and retry' });

/**
 * Plays Vonage's SMS API (`POST /sms/json`, form or JSON body with `api_key`, `api_secret`, `from`,
 * `to`, `text`). As Vonage does, it answers HTTP 200 even when it refuses: status 2 (missing
 * parameter), 4 (bad credentials), 3 (invalid `to`: E.164 digits without `+`), 0 with a `message-id`.
 */
export async function fakeVonage(account: { apiKey: string; apiSecret: string }) {
  const messages: VonageMessage[] = [];
  const server = await fakeServiceServer((request) => {
    if (request.method !== 'POST' || request.path !== '/sms/json') return json(404, { type: 'https://developer.nexmo.com/api-errors#not-found', title: 'Not Found' });
    const isJson = (request.headers['content-type'] ?? '').startsWith('application/json');
    const field = (name: string): string | null => {
      if (!isJson) return request.form.get(name);
      const value = (JSON.parse(request.body) as Record<string, unknown>)[name];
      return typeof value === 'string' ? value : null;
    };
    for (const name of ['api_key', 'api_secret', 'from', 'to', 'text']) {
      if (!field(name)) return vonageAnswer({ status: '2', 'error-text': `Missing ${name} param` });
    }
    if (field('api_key') !== account.apiKey || field('api_secret') !== account.apiSecret) return vonageAnswer({ status: '4', 'error-text': 'Bad Credentials' });
    const to = field('to')!;
    if (!/^[1-9]\d{6,14}$/.test(to)) return vonageAnswer({ status: '3', 'error-text': 'Invalid to address' });
    const message: VonageMessage = { messageId: randomBytes(8).toString('hex').toUpperCase(), from: field('from')!, to, text: field('text')!, type: field('type') };
    messages.push(message);
    return vonageAnswer({ to, 'message-id': message.messageId, status: '0', 'remaining-balance': '15.53590000', 'message-price': '0.03330000', network: '23410' });
  });
  return { ...server, messages };
}
