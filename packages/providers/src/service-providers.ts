import type { Provider } from '@tidings/core';
import { telegramProvider } from './chat/telegram.js';
import { whatsAppProvider } from './chat/whatsapp-business.js';
import { mailgunProvider } from './email/mailgun.js';
import { postmarkProvider } from './email/postmark.js';
import { resendProvider } from './email/resend.js';
import { sendgridProvider } from './email/sendgrid.js';
import { sesProvider } from './email/ses.js';
import { apnsProvider } from './push/apns.js';
import { expoProvider } from './push/expo.js';
import { fcmProvider } from './push/fcm.js';
import { oneSignalProvider } from './push/one-signal.js';
import { webPushProvider } from './push/web-push.js';
import type { ServiceProviderOptions } from './service-options.js';
import { snsProvider } from './sms/sns.js';
import { twilioProvider } from './sms/twilio.js';
import { vonageProvider } from './sms/vonage.js';

/**
 * Every hosted-service provider, each with `options` (network policy, timeout; a `baseUrl` here
 * would point them all at one host, so it is left to each integration's `credentials.baseUrl`).
 * An integration of any of their providerIds then sends through its service.
 */
export const serviceProviders = (options: Omit<ServiceProviderOptions, 'baseUrl'> = {}): Provider[] =>
  [
    sendgridProvider,
    resendProvider,
    postmarkProvider,
    mailgunProvider,
    sesProvider,
    twilioProvider,
    vonageProvider,
    snsProvider,
    fcmProvider,
    apnsProvider,
    expoProvider,
    oneSignalProvider,
    webPushProvider,
    telegramProvider,
    whatsAppProvider,
  ].map((make) => make(options));
