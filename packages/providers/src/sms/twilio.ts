import { ProviderError, type Provider } from '@tidings/core';
import { answerError, answerJson, atBase, serviceRequest } from '../http.js';
import type { ServiceProviderOptions } from '../service-options.js';
import { readTwilioStatus } from './twilio-status.js';
import { baseUrlOf, formBody, overrideFields, pascalCase, recipientPhone, requestOptions, requireCredentials, serviceCode } from './sms-fields.js';

const MESSAGES_URL = 'https://api.twilio.com/2010-04-01/Accounts/{AccountSid}/Messages.json';

/** A Messaging Service SID (MG + 32 hex) sends through the service's sender pool instead of one number. */
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;

/**
 * Twilio Programmable Messaging: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, Basic auth
 * `accountSid:token`, form-encoded `To`, `From` (or `MessagingServiceSid`) and `Body`. The trigger's
 * `overrides.twilio` add or replace fields (`statusCallback` or `StatusCallback`, `MediaUrl`, ...).
 * Errors carry Twilio's own code (e.g. 21211 invalid To, 20003 authentication) as the errorId.
 * `readStatus` reads status callbacks signed with the account's auth token (the `token` credential;
 * see `readTwilioStatus`).
 */
export const twilioProvider = (options: ServiceProviderOptions = {}): Provider => ({
  id: 'twilio',
  channel: 'sms',
  async send(message, credentials, context) {
    const { accountSid, token } = requireCredentials('twilio', credentials, ['accountSid', 'token']);
    const to = recipientPhone('twilio', message);
    const overrides = overrideFields(message.overrides, pascalCase);
    const sender = credentials.from;
    if (!sender && !overrides.some(([key]) => key === 'From' || key === 'MessagingServiceSid')) {
      throw new ProviderError('twilio: the integration has no from credential', { retryable: false, code: 'missing_credentials' });
    }
    const own = {
      To: to,
      ...(sender && (MESSAGING_SERVICE_SID.test(sender) ? { MessagingServiceSid: sender } : { From: sender })),
      Body: message.content,
    };
    const url = atBase(MESSAGES_URL.replace('{AccountSid}', encodeURIComponent(accountSid)), baseUrlOf(credentials, options));
    const answer = await serviceRequest(
      {
        method: 'POST',
        url,
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${token}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: formBody(own, overrides),
      },
      requestOptions(options, context?.signal),
    );
    const json = answerJson(answer) as { sid?: unknown; code?: unknown } | undefined;
    if (answer.status < 200 || answer.status >= 300) {
      throw answerError('twilio', answer, serviceCode(json?.code));
    }
    return typeof json?.sid === 'string' ? { id: json.sid } : {};
  },
  readStatus: (callback, integration) => readTwilioStatus(callback, integration),
});
