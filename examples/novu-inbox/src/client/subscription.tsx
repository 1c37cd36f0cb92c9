/// <reference lib="dom" />
import { NovuProvider, Subscription } from '@novu/react';
import { createRoot } from 'react-dom/client';

/** What the app's backend gives the page: where Tidings is, the subscriber with its HMAC hash, and the topic. */
interface SubscriptionConfig {
  readonly backendUrl: string;
  readonly applicationIdentifier: string;
  readonly subscriberId: string;
  readonly subscriberHash: string;
  readonly topicKey: string;
  readonly workflows: readonly string[];
}

const config = (window as unknown as { INBOX_CONFIG: SubscriptionConfig }).INBOX_CONFIG;

// Novu's unchanged <Subscription />: a subscribe button, and a cog listing the subscription's workflows.
createRoot(document.getElementById('root')!).render(
  <NovuProvider applicationIdentifier={config.applicationIdentifier} subscriber={config.subscriberId} subscriberHash={config.subscriberHash} backendUrl={config.backendUrl} socketUrl={config.backendUrl}>
    <Subscription topicKey={config.topicKey} preferences={[...config.workflows]} />
  </NovuProvider>,
);
