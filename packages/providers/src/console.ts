import type { Channel, Provider } from '@tidings/core';

/**
 * For development: "sends" by printing one line per message (`providerId: 'console'`), on every
 * channel it is given.
 */
export function consoleProviders(options: { channels?: readonly Exclude<Channel, 'in_app'>[]; log?: (line: string) => void } = {}): Provider[] {
  const log = options.log ?? ((line: string) => console.log(line));
  return (options.channels ?? (['email', 'sms', 'chat', 'push'] as const)).map((channel) => ({
    id: 'console',
    channel,
    async send(message) {
      const to = (message.email && message.email.to.length > 0 ? [...message.email.to, ...message.email.cc, ...message.email.bcc].join(', ') : undefined) ?? message.to.email ?? message.to.phone ?? message.to.webhookUrl ?? message.to.deviceTokens?.join(',') ?? message.to.subscriberId;
      log(`[tidings ${channel}] to ${to}${message.subject ? ` — ${message.subject}` : ''}${message.title ? ` — ${message.title}` : ''}: ${message.content}`);
      return { id: message.messageId };
    },
  }));
}
