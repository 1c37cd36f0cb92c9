import { randomBytes } from 'node:crypto';
import { fakeServiceServer, json, type Reply } from './sms-http.js';

/** A message the fake Twilio accepted. */
export interface TwilioMessage {
  readonly sid: string;
  readonly to: string;
  readonly from: string | null;
  readonly messagingServiceSid: string | null;
  readonly body: string;
  readonly statusCallback: string | null;
}

/** Twilio's error body: `{ code, message, more_info, status }`. */
export const twilioError = (status: number, code: number, message: string, headers: Record<string, string> = {}): Reply =>
  json(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, headers);

const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * Plays Twilio's Messages API for one account: `POST /2010-04-01/Accounts/{sid}/Messages.json` with
 * Basic auth `sid:token` and a form body. Answers 201 with the created message (`sid` SM…), or
 * Twilio's error codes: 20003 (authentication), 20404 (unknown resource), 21604 / 21603 / 21602
 * (To / From / Body missing), 21211 (To not a valid number).
 */
export async function fakeTwilio(account: { sid: string; token: string }) {
  const messages: TwilioMessage[] = [];
  const server = await fakeServiceServer((request) => {
    if (request.method !== 'POST' || request.path !== `/2010-04-01/Accounts/${account.sid}/Messages.json`) {
      return twilioError(404, 20404, 'The requested resource was not found');
    }
    const [scheme, encoded] = (request.headers.authorization ?? '').split(' ');
    if (scheme !== 'Basic' || Buffer.from(encoded ?? '', 'base64').toString() !== `${account.sid}:${account.token}`) return twilioError(401, 20003, 'Authenticate');
    const form = request.form;
    const to = form.get('To');
    if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
    if (!form.get('From') && !form.get('MessagingServiceSid')) return twilioError(400, 21603, "A 'From' phone number is required.");
    if (!form.get('Body') && !form.get('MediaUrl')) return twilioError(400, 21602, 'Message body is required.');
    if (!E164.test(to)) return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    const message: TwilioMessage = {
      sid: `SM${randomBytes(16).toString('hex')}`,
      to,
      from: form.get('From'),
      messagingServiceSid: form.get('MessagingServiceSid'),
      body: form.get('Body') ?? '',
      statusCallback: form.get('StatusCallback'),
    };
    messages.push(message);
    return json(201, {
      sid: message.sid,
      account_sid: account.sid,
      to: message.to,
      from: message.from,
      messaging_service_sid: message.messagingServiceSid,
      body: message.body,
      status: message.messagingServiceSid ? 'accepted' : 'queued',
      num_segments: '1',
      direction: 'outbound-api',
      api_version: '2010-04-01',
      error_code: null,
      error_message: null,
      uri: `/2010-04-01/Accounts/${account.sid}/Messages/${message.sid}.json`,
    });
  });
  return { ...server, messages };
}
