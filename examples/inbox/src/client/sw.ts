/// <reference lib="dom" />
// The inbox example's service worker (served at /sw.js, so its scope is the whole site): shows each
// push message as a notification, and a click on one brings the inbox up.
//
// A message is what the web-push provider sends: `{ title, body, data }` (JSON, decrypted by the
// browser). Bundled by esbuild when the example server starts.

/** The parts of the service worker global this file uses (TypeScript's DOM library has no `webworker` types alongside). */
interface ExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  readonly data: { json(): unknown; text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  readonly notification: Notification;
}
interface WindowClient {
  readonly url: string;
  focus(): Promise<WindowClient>;
}
interface ServiceWorkerScope {
  readonly registration: ServiceWorkerRegistration;
  readonly location: Location;
  readonly clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly WindowClient[]>;
    openWindow(url: string): Promise<WindowClient | null>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
}
declare const self: ServiceWorkerScope;

interface PushMessage {
  title?: string;
  body?: string;
  data?: unknown;
}

/** The message's title, body and data; a message that is not JSON is shown as its text. */
function read(data: PushEvent['data']): PushMessage {
  if (!data) return {};
  try {
    const message = data.json();
    return typeof message === 'object' && message !== null ? (message as PushMessage) : { body: String(message) };
  } catch {
    return { body: data.text() };
  }
}

// A new version takes over at once (the page keeps working with either).
self.addEventListener('install', (event) => event.waitUntil(self.skipWaiting()));
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// Subscribed with `userVisibleOnly: true`: every push must show a notification.
self.addEventListener('push', (event) => {
  const message = read(event.data);
  event.waitUntil(self.registration.showNotification(message.title ?? 'Acme app', { body: message.body ?? '', data: message.data ?? null }));
});

// A click focuses an open inbox tab, else opens one.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (open) await open.focus();
      else await self.clients.openWindow('/');
    })(),
  );
});

export {};
