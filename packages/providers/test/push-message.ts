import type { ProviderMessage } from '@tidings/core';

/** A message as the engine hands it to a push provider, to these device tokens. */
export const pushMessage = (deviceTokens: string[]): ProviderMessage => ({
  messageId: 'msg-1',
  transactionId: 'tx-1',
  channel: 'push',
  to: { subscriberId: 'ada', deviceTokens },
  title: 'Hi',
  content: 'Hello',
  payload: { n: 1 },
  overrides: {},
});
