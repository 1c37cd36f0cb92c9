/// <reference lib="dom" />
import { Inbox } from '@novu/react';
import { createRoot } from 'react-dom/client';

/** What the app's backend gives the page: where Tidings is, and the subscriber with its HMAC hash. */
interface InboxConfig {
  readonly backendUrl: string;
  readonly applicationIdentifier: string;
  readonly subscriberId: string;
  readonly subscriberHash: string;
  /** A workspace's page: the Inbox shows only what was triggered with this context. */
  readonly context?: Record<string, string>;
  readonly contextHash?: string;
}

const config = (window as unknown as { INBOX_CONFIG: InboxConfig }).INBOX_CONFIG;

// Novu's unchanged <Inbox />, pointed at Tidings for both REST and live updates.
createRoot(document.getElementById('root')!).render(
  <Inbox
    applicationIdentifier={config.applicationIdentifier}
    subscriber={config.subscriberId}
    subscriberHash={config.subscriberHash}
    {...(config.context && { context: config.context, contextHash: config.contextHash })}
    backendUrl={config.backendUrl}
    socketUrl={config.backendUrl}
  />,
);
